// Without SMTP_URL the mail copies (with live codes) are readable by this system user only, and
// never written in production unless asked for; and the fake providers, which sign anyone in as
// anyone, must only ever listen on the loopback interface.
import { readdirSync, statSync } from "node:fs";
import { networkInterfaces } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { codeMail, sendMail } from "~/integrations/mail.server";
import { startFakeProviders } from "../scripts/fake-providers";
import { setEnv } from "./env";

const mailDir = () => path.join(process.env.DATA_DIR!, "mail");
const files = () =>
  readdirSync(mailDir(), { withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(mailDir(), entry.name));
const mail = (to: string) => codeMail({ to, subject: "Code", intro: "Your code:", code: "123456", outro: "Bye" });

afterEach(() => {
  setEnv("NODE_ENV", "test");
  setEnv("MAIL_TO_FILES", undefined);
});

describe("mail copies without SMTP_URL", () => {
  it("are readable by this system user only", async () => {
    await sendMail(mail("files@example.com"));
    expect(statSync(mailDir()).mode & 0o777).toBe(0o700);
    const written = files();
    expect(written.length).toBe(2);
    for (const file of written) expect(statSync(file).mode & 0o777, file).toBe(0o600);
  });

  it("are never written in production unless MAIL_TO_FILES=true asks for them", async () => {
    const before = files().length;
    setEnv("NODE_ENV", "production");
    await expect(sendMail(mail("prod@example.com"))).rejects.toThrow(/SMTP_URL/);
    expect(files().length).toBe(before);
    setEnv("MAIL_TO_FILES", "true");
    await sendMail(mail("demo@example.com"));
    expect(files().length).toBe(before + 2);
  });
});

describe("fake providers", () => {
  it("listen on 127.0.0.1 only, whatever the caller asks", async () => {
    const fake = await startFakeProviders({ port: 0, host: "0.0.0.0" } as Parameters<typeof startFakeProviders>[0]);
    try {
      const url = new URL(fake.url);
      expect(url.hostname).toBe("127.0.0.1");
      const outside = Object.values(networkInterfaces())
        .flat()
        .find((address) => address && address.family === "IPv4" && !address.internal);
      if (outside) {
        const reached = await fetch(`http://${outside.address}:${url.port}/google/authorize`, { signal: AbortSignal.timeout(2000) }).then(
          () => true,
          () => false,
        );
        expect(reached).toBe(false);
      }
    } finally {
      await fake.stop();
    }
  });
});
