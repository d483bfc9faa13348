// The server's log: one JSON object per line on stdout in production (for a log collector),
// readable colored lines with NODE_ENV=development. Under NODE_ENV=test only errors are written,
// through console.error, so a test that logs an error it did not expect fails (tests/setup-file.ts).
import pino, { type Logger } from "pino";
import pretty from "pino-pretty";
import { env } from "~/env.server";

function createLogger(): Logger {
  const mode = env().NODE_ENV;
  const options: pino.LoggerOptions = {
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    // `"level":"info"` rather than pino's numbers: readable by a person grepping the log.
    formatters: { level: (label) => ({ level: label }) },
  };
  if (mode === "test") {
    return pino({ ...options, level: "error", base: null, timestamp: false }, { write: (line: string) => console.error(line.trimEnd()) });
  }
  if (mode === "development") {
    return pino(options, pretty({ sync: true, colorize: process.stdout.isTTY, translateTime: "SYS:HH:MM:ss.l", ignore: "pid" }));
  }
  // Synchronous writes: a line logged just before the process exits is not lost.
  return pino(options, pino.destination({ dest: 1, sync: true }));
}

// One logger per process: the Remix build and the HTTP server are bundled apart, and both log.
const shared = globalThis as unknown as { __logger?: Logger };

/** The process's logger (pino): `log().info({ field }, "message")`. */
export function log(): Logger {
  shared.__logger ??= createLogger();
  return shared.__logger;
}

/** An error as log fields: pino's error serializer writes its type, message and stack. */
export function errorFields(error: unknown): { err: Error | { message: string } } {
  return { err: error instanceof Error ? error : { message: String(error) } };
}
