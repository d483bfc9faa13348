// Configuration is read only through env(): the modules that used to read process.env
// themselves (the mail, the jobs, the production server and its workers) now get their values
// from its schema, so a malformed value is refused with a message that names it.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseEnv } from "~/env.server";
import { codeMail, sendMail } from "~/integrations/mail.server";
import { startBackgroundJobs } from "~/jobs.server";
import { appServerArgs } from "../scripts/app-server";
import { setEnv } from "./env";
import { productionServerEnv, runUntilExit } from "./helpers";

/** The output of a production server until it says where it listens (then it is stopped). */
async function startedServerOutput(environment: NodeJS.ProcessEnv): Promise<string> {
  const child = spawn(process.execPath, appServerArgs(), { cwd: path.resolve(import.meta.dirname, ".."), env: environment, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the server did not start: ${output}`)), 30_000);
      const read = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes("[server] http://")) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout.on("data", read);
      child.stderr.on("data", read);
      child.once("exit", () => reject(new Error(`the server exited: ${output}`)));
    });
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      await once(child, "exit");
    }
  }
  return output;
}

const base = { DATABASE_URL: "postgresql://postgres@127.0.0.1:5432/x" };

afterEach(() => {
  setEnv("SMTP_URL", undefined);
  setEnv("DISABLE_JOBS", undefined);
});

describe("the server's own settings are part of the schema", () => {
  it("has the documented defaults, including the one 4 GiB post-file limit", () => {
    const config = parseEnv(base);
    expect(config).toMatchObject({
      REQUEST_LOG: true,
      HEADERS_TIMEOUT_MS: 15_000,
      REQUEST_BODY_TIMEOUT_MS: 30_000,
      DISABLE_JOBS: false,
      REMIX_BUILD_DIR: "build",
    });
    expect(config.POST_FILE_MAX_BYTES).toBe(4 * 1024 * 1024 * 1024);
    expect(config.WEB_CONCURRENCY).toBeUndefined();
    expect(parseEnv({ ...base, WEB_CONCURRENCY: "3", REQUEST_LOG: "false", DISABLE_JOBS: "1", HOST: "127.0.0.1" })).toMatchObject({
      WEB_CONCURRENCY: 3,
      REQUEST_LOG: false,
      DISABLE_JOBS: true,
      HOST: "127.0.0.1",
    });
  });

  it("names a malformed server setting instead of falling back silently", () => {
    expect(() => parseEnv({ ...base, WEB_CONCURRENCY: "lots" })).toThrow(/WEB_CONCURRENCY/);
    expect(() => parseEnv({ ...base, HEADERS_TIMEOUT_MS: "-5" })).toThrow(/HEADERS_TIMEOUT_MS/);
    expect(() => parseEnv({ ...base, REQUEST_BODY_TIMEOUT_MS: "soon" })).toThrow(/REQUEST_BODY_TIMEOUT_MS/);
    expect(() => parseEnv({ ...base, REQUEST_LOG: "quiet" })).toThrow(/REQUEST_LOG/);
    expect(() => parseEnv({ ...base, DISABLE_JOBS: "yes" })).toThrow(/DISABLE_JOBS/);
  });
});

describe("modules read their values through env()", () => {
  it("the mail refuses an SMTP_URL that env's schema refuses", async () => {
    setEnv("SMTP_URL", "http://mail.example");
    const mail = codeMail({ to: "a@example.com", subject: "Code", intro: "Hi", code: "123456", outro: "Bye" });
    await expect(sendMail(mail)).rejects.toThrow(/SMTP_URL: must start with smtp/);
  });

  it("the background jobs refuse a DISABLE_JOBS that env's schema refuses", () => {
    setEnv("DISABLE_JOBS", "yes");
    expect(() => startBackgroundJobs()).toThrow(/DISABLE_JOBS/);
  });

  it("the production server says at start, once, that it cannot send mail without SMTP_URL", async () => {
    const said = async (extra: Record<string, string>) => {
      const environment = await productionServerEnv({ WEB_CONCURRENCY: "2", ...extra });
      delete environment.SMTP_URL;
      delete environment.MAIL_TO_FILES;
      Object.assign(environment, extra);
      return startedServerOutput(environment);
    };
    const without = await said({});
    expect(without).toContain("[server] http://");
    expect(without.split("No mail transport: set SMTP_URL").length - 1).toBe(1);
    expect(without).toContain("sign-up and password-reset codes, shop-email links and update mails wait in the mail outbox");
    expect(await said({ MAIL_TO_FILES: "true" })).not.toContain("No mail transport");
    expect(await said({ SMTP_URL: "smtp://127.0.0.1:2525" })).not.toContain("No mail transport");
  }, 60_000);

  it("npm start refuses the fake sign-in providers with NODE_ENV=production, before it touches anything", async () => {
    const { code, output } = await runUntilExit(["--import", "tsx", "scripts/start.ts"], {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: "production",
      FAKE_PROVIDERS: "true",
      DATABASE_URL: process.env.DATABASE_URL,
    });
    expect(code).toBe(1);
    expect(output.trim()).toBe("FAKE_PROVIDERS=true is refused with NODE_ENV=production: the fake providers sign anyone in as any email.");
  });

  it("npm start says at once that its port is taken, before it builds or starts a database, and leaves DATA_DIR to the next start", async () => {
    const holder = createServer().listen(0, "127.0.0.1");
    await once(holder, "listening");
    const { port } = holder.address() as AddressInfo;
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "clib-port-taken-"));
    try {
      const { code, output } = await runUntilExit(["--import", "tsx", "scripts/start.ts"], {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        PORT: String(port),
        DATA_DIR: dataDir,
      } as Partial<NodeJS.ProcessEnv> as NodeJS.ProcessEnv);
      expect(code).toBe(1);
      expect(output.trim()).toBe(`Port ${port} is already in use by another program. Stop it, or set PORT to a free port (PORT=3001 npm start).`);
      // Nothing started, nothing claimed.
      expect(existsSync(path.join(dataDir, "postgres"))).toBe(false);
      expect(existsSync(path.join(dataDir, "npm-start.lock"))).toBe(false);
    } finally {
      holder.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("the production server stops at start, before any worker, on a malformed setting", async () => {
    const { code, output } = await runUntilExit(appServerArgs(), await productionServerEnv({ WEB_CONCURRENCY: "lots" }));
    expect(code).toBe(1);
    expect(output).toContain("Invalid configuration");
    expect(output).toContain("WEB_CONCURRENCY");
    expect(output).not.toContain("[server] http://");
  });
});
