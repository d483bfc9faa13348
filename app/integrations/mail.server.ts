// Outgoing mail through nodemailer: SMTP when SMTP_URL is set; otherwise, outside production
// (or with MAIL_TO_FILES=true), each message is logged and written to DATA_DIR/mail (an .eml
// copy plus a readable .txt), so a local demo needs no mail server and codes can still be read.
// Those copies hold live codes: only this system user may read them.
import { randomBytes } from "node:crypto";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Transporter } from "nodemailer";
import { env } from "~/env.server";
import { log } from "~/logger.server";

/** `headers`: extra header lines, e.g. the digests' List-Unsubscribe (RFC 8058). */
export type OutgoingMail = { to: string; subject: string; text: string; html: string; headers?: Record<string, string> };

let transporter: Transporter | undefined;
let transporterUrl: string | undefined;

// nodemailer is loaded with the first mail, not at start (a smaller process for the pages).
async function nodemailer() {
  return (await import("nodemailer")).default;
}

async function smtpTransport(url: string): Promise<Transporter> {
  // Tests point SMTP_URL at a different capture server per file: rebuild when it changes.
  if (!transporter || transporterUrl !== url) {
    // Bounded waits: the outbox's claim on a message (CLAIM_MS) must outlast one attempt.
    transporter = (await nodemailer()).createTransport({ url, connectionTimeout: 30_000, greetingTimeout: 30_000, socketTimeout: 60_000 });
    transporterUrl = url;
  }
  return transporter;
}

/** Whether mail without SMTP_URL goes to DATA_DIR/mail: never in production unless asked for. */
function mailToFiles(): boolean {
  const config = env();
  return config.MAIL_TO_FILES === undefined ? config.NODE_ENV !== "production" : config.MAIL_TO_FILES === "true";
}

/**
 * What the server says at start when it can send no mail (production without SMTP_URL or
 * MAIL_TO_FILES=true): it still serves every page, but no mail leaves the outbox, so a newcomer
 * would otherwise first learn of it from a code that never arrives.
 */
export function missingMailTransportWarning(): string | null {
  if (env().SMTP_URL || mailToFiles()) return null;
  return "No mail transport: set SMTP_URL (or MAIL_TO_FILES=true to write mail to DATA_DIR/mail). Until then no mail leaves: sign-up and password-reset codes, shop-email links and update mails wait in the mail outbox (/admin/mail) and are given up in time.";
}

/**
 * Sends one mail; throws when the SMTP server refuses it or no transport is configured. Models
 * do not call it: they enqueue in the mail outbox (models/mail-outbox.server.ts), which calls it.
 */
export async function sendMail(mail: OutgoingMail): Promise<void> {
  const config = env();
  const message = { from: config.MAIL_FROM, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html, headers: mail.headers };
  if (config.SMTP_URL) {
    await (await smtpTransport(config.SMTP_URL)).sendMail(message);
    return;
  }
  if (!mailToFiles()) throw new Error("No mail transport: set SMTP_URL (mail files are written in production only with MAIL_TO_FILES=true).");
  const folder = path.resolve(config.DATA_DIR, "mail");
  await mkdir(folder, { recursive: true, mode: 0o700 });
  await chmod(folder, 0o700);
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const base = path.join(folder, `${stamp}-${randomBytes(3).toString("hex")}`);
  const built = await (await nodemailer()).createTransport({ streamTransport: true, buffer: true }).sendMail(message);
  // "wx": a new file, created with these permissions whatever the umask allows others.
  await writeFile(`${base}.eml`, built.message as Buffer, { mode: 0o600, flag: "wx" });
  await writeFile(`${base}.txt`, `To: ${mail.to}\nSubject: ${mail.subject}\n\n${mail.text}\n`, { mode: 0o600, flag: "wx" });
  log().info(`[mail] to ${mail.to}: ${mail.subject} (no SMTP_URL; saved to ${path.relative(process.cwd(), base)}.txt)`);
}

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** A code mail in readable plain text and simple HTML that works in dark and light clients. */
export function codeMail({ to, subject, intro, code, outro }: { to: string; subject: string; intro: string; code: string; outro: string }): OutgoingMail {
  const text = `${intro}\n\n    ${code}\n\n${outro}\n`;
  const html = `<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.5;color:#111;background:#fff;padding:24px">
<p>${escapeHtml(intro)}</p>
<p style="font-size:28px;font-weight:700;letter-spacing:6px;font-family:monospace">${escapeHtml(code)}</p>
<p>${escapeHtml(outro)}</p>
</body></html>`;
  return { to, subject, text, html };
}
