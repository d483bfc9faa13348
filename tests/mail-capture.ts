// A real SMTP server on a random 127.0.0.1 port that keeps what it receives, so tests send
// mail exactly as production does and read the codes back from the received messages.
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { setEnv } from "./env";

export type CapturedMail = { to: string[]; from: string; subject: string; text: string; html: string; raw: string };

export type MailCapture = {
  url: string;
  messages: CapturedMail[];
  /** Resolves with the next mail to `to` not yet taken (waits up to `timeoutMs`). */
  nextMailTo(to: string, timeoutMs?: number): Promise<CapturedMail>;
  /** The 6-digit code of the next mail to `to`. */
  nextCodeFor(to: string, timeoutMs?: number): Promise<string>;
  stop(): Promise<void>;
};

export async function startMailCapture(): Promise<MailCapture> {
  const messages: CapturedMail[] = [];
  const taken = new Set<CapturedMail>();
  const waiters: (() => void)[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        const parsed = parseMessage(raw);
        messages.push({
          ...parsed,
          raw,
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address.toLowerCase()),
        });
        waiters.splice(0).forEach((wake) => wake());
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;

  async function nextMailTo(to: string, timeoutMs = 10_000): Promise<CapturedMail> {
    const address = to.toLowerCase();
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = messages.find((message) => !taken.has(message) && message.to.includes(address));
      if (found) {
        taken.add(found);
        return found;
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no mail to ${to} within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 200));
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    nextMailTo,
    async nextCodeFor(to, timeoutMs) {
      const mail = await nextMailTo(to, timeoutMs);
      const match = /\b(\d{6})\b/.exec(mail.text);
      if (!match) throw new Error(`mail to ${to} holds no code:\n${mail.text}`);
      return match[1]!;
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Enough MIME to read nodemailer's messages: headers, and text/html parts (7bit, QP or base64). */
function parseMessage(raw: string): { subject: string; text: string; html: string } {
  const [head = "", ...rest] = raw.split(/\r?\n\r?\n/);
  const headers = parseHeaders(head);
  const body = rest.join("\r\n\r\n");
  const parts = collectParts(headers, body);
  return {
    subject: decodeWords(headers.get("subject") ?? ""),
    text: parts.find((part) => part.type === "text/plain")?.body ?? "",
    html: parts.find((part) => part.type === "text/html")?.body ?? "",
  };
}

function parseHeaders(head: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const line of head.replace(/\r?\n[ \t]+/g, " ").split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon > 0) map.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return map;
}

function collectParts(headers: Map<string, string>, body: string): { type: string; body: string }[] {
  const contentType = headers.get("content-type") ?? "text/plain";
  const type = contentType.split(";")[0]!.trim().toLowerCase();
  if (type.startsWith("multipart/")) {
    const boundary = /boundary="?([^";]+)"?/i.exec(contentType)?.[1];
    if (!boundary) return [];
    return body
      .split(`--${boundary}`)
      .slice(1)
      .filter((section) => !section.startsWith("--"))
      .flatMap((section) => {
        const trimmed = section.replace(/^\r?\n/, "");
        const [partHead = "", ...partBody] = trimmed.split(/\r?\n\r?\n/);
        return collectParts(parseHeaders(partHead), partBody.join("\r\n\r\n"));
      });
  }
  return [{ type, body: decodeBody(body, headers.get("content-transfer-encoding") ?? "7bit") }];
}

function decodeBody(body: string, encoding: string): string {
  switch (encoding.toLowerCase()) {
    case "base64":
      return Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8");
    case "quoted-printable":
      return Buffer.from(
        body.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/gi, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16))),
        "latin1",
      ).toString("utf8");
    default:
      return body;
  }
}

function decodeWords(value: string): string {
  return value.replace(/=\?utf-8\?([BQ])\?([^?]*)\?=/gi, (_match, kind: string, text: string) =>
    kind.toUpperCase() === "B" ? Buffer.from(text, "base64").toString("utf8") : decodeBody(text.replace(/_/g, " "), "quoted-printable"),
  );
}

/**
 * Starts a capture server for the test file and points the app's mail at it (SMTP_URL); the
 * returned function gives the running capture inside tests.
 */
export function useMailCapture(): () => MailCapture {
  let capture: MailCapture | undefined;
  beforeAll(async () => {
    capture = await startMailCapture();
    setEnv("SMTP_URL", capture.url);
  });
  afterAll(async () => {
    setEnv("SMTP_URL", undefined);
    await capture?.stop();
  });
  return () => {
    if (!capture) throw new Error("mail capture is not running");
    return capture;
  };
}
