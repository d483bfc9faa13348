// The server's log: one JSON object per line on stdout in production (for a log collector),
// readable colored lines with NODE_ENV=development. A line written while a request is handled
// carries its `requestId` (its X-Request-Id, app/request-context.server.ts). Under NODE_ENV=test
// only warnings and errors are written, through console.warn and console.error, so a test that
// logs an error it did not expect fails (tests/setup-file.ts).
import pino, { type Logger } from "pino";
import pretty from "pino-pretty";
import { env } from "~/env.server";
import { currentRequestId } from "~/request-context.server";

function createLogger(): Logger {
  const mode = env().NODE_ENV;
  const options: pino.LoggerOptions = {
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    // `"level":"info"` rather than pino's numbers: readable by a person grepping the log.
    formatters: { level: (label) => ({ level: label }) },
    // A line's own requestId wins (the request line names its request, a line may leave it out).
    mixin: () => {
      const requestId = currentRequestId();
      return requestId ? { requestId } : {};
    },
  };
  if (mode === "test") {
    const write = (line: string) => (line.startsWith('{"level":"warn"') ? console.warn : console.error)(line.trimEnd());
    return pino({ ...options, level: "warn", base: null, timestamp: false }, { write });
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
