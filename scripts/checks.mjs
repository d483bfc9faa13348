// `npm run checks`: the type check, the lint (ESLint, Prettier) and knip (unused files, exports
// and dependencies: knip.config.ts) at the same time; each one's output is printed whole when it
// ends. Fails when any of them fails.
// npm scripts named as arguments run beside them (`npm test` adds `build`, which fills the core
// the lint leaves idle while the type check finishes).
import { spawn } from "node:child_process";

const CHECKS = [
  ["typecheck", "npx", ["tsc", "--noEmit"]],
  ["eslint", "npx", ["eslint", "."]],
  ["prettier", "npx", ["prettier", "--check", "."]],
  ["knip", "npx", ["knip", "--no-progress"]],
  ...process.argv.slice(2).map((script) => [script, "npm", ["run", "--silent", script]]),
];

const results = await Promise.all(
  CHECKS.map(
    ([name, command, args]) =>
      new Promise((resolve) => {
        const started = Date.now();
        const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
        let output = "";
        child.stdout.on("data", (chunk) => (output += chunk));
        child.stderr.on("data", (chunk) => (output += chunk));
        child.on("close", (code) => {
          const seconds = ((Date.now() - started) / 1000).toFixed(1);
          process.stdout.write(`${code === 0 ? "ok" : "FAILED"}  ${name} (${seconds} s)\n${code === 0 ? "" : output}`);
          resolve(code === 0);
        });
      }),
  ),
);
process.exit(results.every(Boolean) ? 0 : 1);
