// The production server's log as tests read it: one JSON object per line (app/logger.server.ts).

/** The JSON log lines of a server's output (a configuration error at start would be a plain line). */
export function logLines(output: string): Record<string, unknown>[] {
  return output
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The line server/observe.ts wrote for the request with this id (its X-Request-Id), if written yet. */
export function requestLineIn(output: string, requestId: string): Record<string, unknown> | undefined {
  return logLines(output).find((line) => line.requestId === requestId && "status" in line);
}
