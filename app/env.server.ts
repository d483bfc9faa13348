// Configuration: every environment variable the server reads, validated once at start.
// A missing or malformed value stops the server with a message that names it.
import { z } from "zod";
import { isTimeZone } from "./utils/time-zone";

const list = z
  .string()
  .optional()
  .transform((value) =>
    (value ?? "")
      .split(",")
      .map((item) => item.trim())
      .filter(Boolean),
  );

const origin = z.string().transform((value, ctx) => {
  try {
    return new URL(value).origin;
  } catch {
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: `"${value}" is not an absolute URL` });
    return z.NEVER;
  }
});

const boolFlag = z
  .enum(["true", "false", "1", "0", ""])
  .optional()
  .transform((value) => value === "true" || value === "1");

const optionalUrl = z.string().url().optional();

const schema = z
  .object({
    NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
    PORT: z.coerce.number().int().min(1).max(65535).default(3000),
    /** Address to listen on; unset, every interface. */
    HOST: z.string().trim().min(1).optional(),
    /** Worker processes of the production server (server/index.ts); unset, one per core. */
    WEB_CONCURRENCY: z.coerce.number().int().min(1).max(256).optional(),
    /** `false` silences the one-line request log. */
    REQUEST_LOG: z
      .enum(["true", "false", ""])
      .optional()
      .transform((value) => value !== "false"),
    /**
     * How the password-hashing threads yield to page views (app/integrations/password-worker.mjs):
     * `idle` runs them only when the cores have nothing else to do (Linux SCHED_IDLE), `low` at
     * nice 10, which leaves them about a tenth of a busy core.
     */
    PASSWORD_THREAD_PRIORITY: z.enum(["idle", "low"]).default("idle"),
    /** The request head must arrive within this (server/worker.ts). */
    HEADERS_TIMEOUT_MS: z.coerce.number().int().min(1).default(15_000),
    /** A request body must arrive within this; post-file uploads get more (server/security.ts). */
    REQUEST_BODY_TIMEOUT_MS: z.coerce.number().int().min(1).default(30_000),
    /**
     * On SIGTERM/SIGINT the server stops taking connections and gives the responses in flight
     * (a large mod file to a slow downloader) this long to finish before it exits (server/worker.ts).
     */
    SHUTDOWN_DRAIN_SECONDS: z.coerce.number().int().min(0).max(86_400).default(300),
    /**
     * Admission control per worker (server/admission.ts): requests worked on at once, requests
     * waiting for a turn, and how long one may wait; past these a request hears 503 + Retry-After.
     */
    MAX_IN_FLIGHT_REQUESTS: z.coerce.number().int().min(1).max(10_000).default(16),
    MAX_QUEUED_REQUESTS: z.coerce.number().int().min(0).max(100_000).default(512),
    REQUEST_QUEUE_TIMEOUT_MS: z.coerce.number().int().min(1).max(60_000).default(1_000),
    /** `1` keeps this server from running the background jobs (the cluster gives them to one worker). */
    DISABLE_JOBS: boolFlag,
    /** Set by the cluster supervisor for its workers: it announces the whole group itself. */
    SERVER_QUIET: boolFlag,
    APP_URL: z.string().url().optional(),
    DATABASE_URL: z
      .string({ required_error: "is required (npm start provides an embedded database when it is unset)" })
      .regex(/^postgres(ql)?:\/\//, "must be a postgresql:// connection string"),
    /**
     * A direct connection for migrations and the interval job's lock when DATABASE_URL goes
     * through a transaction-mode pooler; unset, DATABASE_URL serves for both.
     */
    DIRECT_DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, "must be a postgresql:// connection string")
      .optional(),
    DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(1000).default(10),
    /**
     * How long a request waits for the database (a connection, or the answer to one query) before
     * it hears 503 + Retry-After: a frozen host or a dropped network answers nothing at all.
     */
    DATABASE_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
    DATA_DIR: z.string().min(1).default("./data"),
    /** Where `npm run build` wrote the app (vite.config.ts and the build scripts read it too). */
    REMIX_BUILD_DIR: z.string().min(1).default("build"),
    SESSION_SECRET: list,
    SMTP_URL: z
      .string()
      .regex(/^smtps?:\/\//, "must start with smtp:// or smtps://")
      .optional(),
    MAIL_FROM: z.string().min(3).default("Creator Library <no-reply@localhost>"),
    /**
     * Without SMTP_URL, write each mail (codes included) to DATA_DIR/mail, readable by this
     * system user only. Default: on outside production, off in production (a local demo that
     * runs with NODE_ENV=production turns it on explicitly).
     */
    MAIL_TO_FILES: z
      .enum(["true", "false", ""])
      .optional()
      .transform((value) => (value === "" ? undefined : value)),
    ADMIN_EMAILS: list.transform((emails) => emails.map((email) => email.toLowerCase())),
    CALLBACK_ORIGINS: z
      .string()
      .optional()
      .transform((value, ctx) => {
        const items = (value ?? "")
          .split(",")
          .map((item) => item.trim())
          .filter(Boolean);
        const parsed = z.array(origin).safeParse(items);
        if (!parsed.success) {
          ctx.addIssue({ code: z.ZodIssueCode.custom, message: parsed.error.issues[0]?.message ?? "invalid" });
          return z.NEVER;
        }
        return parsed.data;
      }),
    KOFI_VERIFICATION_TOKEN: z.string().optional(),
    KOFI_SHOP_URL: z.string().url().default("https://ko-fi.com"),
    /** The creator's time zone (IANA name): the release editor's times are entered and shown in it. */
    CREATOR_TIME_ZONE: z
      .string()
      .trim()
      .default("UTC")
      .refine((zone) => isTimeZone(zone), "is not a time zone name such as Europe/Berlin"),

    PATREON_CLIENT_ID: z.string().optional(),
    PATREON_CLIENT_SECRET: z.string().optional(),
    PATREON_AUTHORIZE_URL: z.string().url().default("https://www.patreon.com/oauth2/authorize"),
    PATREON_TOKEN_URL: z.string().url().default("https://www.patreon.com/api/oauth2/token"),
    PATREON_API_URL: z.string().url().default("https://www.patreon.com/api/oauth2/v2"),
    PATREON_CREATOR_ACCESS_TOKEN: z.string().optional(),
    PATREON_CAMPAIGN_ID: z.string().optional(),
    PATREON_WEBHOOK_SECRET: z.string().optional(),
    PATREON_CREATOR_URL: z.string().url().default("https://www.patreon.com"),

    GOOGLE_CLIENT_ID: z.string().optional(),
    GOOGLE_CLIENT_SECRET: z.string().optional(),
    GOOGLE_AUTHORIZE_URL: z.string().url().default("https://accounts.google.com/o/oauth2/v2/auth"),
    /**
     * How long a sign-in waits for a provider's token or profile call before it fails with
     * `provider_error` (a provider that accepts the connection and never answers).
     */
    PROVIDER_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
    GOOGLE_TOKEN_URL: z.string().url().default("https://oauth2.googleapis.com/token"),
    GOOGLE_USERINFO_URL: z.string().url().default("https://openidconnect.googleapis.com/v1/userinfo"),

    DISCORD_CLIENT_ID: z.string().optional(),
    DISCORD_CLIENT_SECRET: z.string().optional(),
    DISCORD_AUTHORIZE_URL: z.string().url().default("https://discord.com/oauth2/authorize"),
    DISCORD_TOKEN_URL: z.string().url().default("https://discord.com/api/oauth2/token"),
    DISCORD_API_URL: z.string().url().default("https://discord.com/api/v10"),
    /** Discord roles that follow access (docs/product.md#discord-roles): the bot's token and the server's id; both, or the feature is off. */
    DISCORD_BOT_TOKEN: z.string().trim().min(1).optional(),
    DISCORD_GUILD_ID: z
      .string()
      .trim()
      .regex(/^\d{1,20}$/, "is not a Discord server id (digits)")
      .optional(),
    /** The bot's REST base (tests and the demo point it at a fake). */
    DISCORD_API_BASE: z.string().url().default("https://discord.com/api/v10"),

    STORAGE_DRIVER: z.enum(["local", "s3"]).default("local"),
    S3_ENDPOINT: optionalUrl,
    S3_REGION: z.string().default("us-east-1"),
    S3_BUCKET: z.string().optional(),
    S3_ACCESS_KEY_ID: z.string().optional(),
    S3_SECRET_ACCESS_KEY: z.string().optional(),
    S3_FORCE_PATH_STYLE: boolFlag,
    /**
     * How long an S3 call waits for a connection, and for the next byte once connected, before it
     * fails (the SDK then tries twice more; a download that still gets nothing answers 503).
     */
    S3_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
    /** Largest post file an admin may upload (bytes); uploads stream to storage, never into memory. */
    POST_FILE_MAX_BYTES: z.coerce
      .number()
      .int()
      .min(1)
      .default(4 * 1024 * 1024 * 1024),

    INTERVAL_MINUTES: z.coerce.number().min(0).default(60),
    // Download records older than this are deleted by the daily housekeeping job.
    DOWNLOAD_RETENTION_DAYS: z.coerce.number().int().min(1).max(36500).default(730),
    /** Hours between two update digest mails (one run per cluster); 0 turns the digests off. */
    UPDATE_DIGEST_HOURS: z.coerce.number().min(0).default(24),
    /** `true`: a member whose membership lapses keeps the versions they downloaded through it (docs/product.md#keep-what-you-downloaded). */
    KEEP_DOWNLOADED_VERSIONS: boolFlag,
    /** Local fake OAuth/support-platform server for the demo and tests; refused in production. */
    FAKE_PROVIDERS_URL: optionalUrl,
    /**
     * Header that the reverse proxy YOU run sets to the client's address (e.g. X-Forwarded-For,
     * X-Real-IP, Fly-Client-IP). Unset: addresses are not used (a client could forge the header).
     */
    CLIENT_IP_HEADER: z.string().trim().toLowerCase().optional(),
    /**
     * With it, /metrics answers `Authorization: Bearer <METRICS_TOKEN>` from any address (a
     * Prometheus on another machine); unset, only clients on this machine (server/observe.ts).
     */
    METRICS_TOKEN: z
      .string()
      .regex(/^\S{24,}$/, "must be at least 24 characters without spaces (e.g. `openssl rand -hex 32`)")
      .optional(),
  })
  .superRefine((env, ctx) => {
    if (env.NODE_ENV === "production") {
      if (env.SESSION_SECRET.length === 0 || env.SESSION_SECRET.some((secret) => secret.length < 32)) {
        ctx.addIssue({
          code: z.ZodIssueCode.custom,
          path: ["SESSION_SECRET"],
          message: "is required in production: one or more comma-separated secrets of 32+ characters",
        });
      }
      if (env.FAKE_PROVIDERS_URL) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, path: ["FAKE_PROVIDERS_URL"], message: "is refused in production" });
      }
    }
    if (env.STORAGE_DRIVER === "s3" && !env.S3_BUCKET) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ["S3_BUCKET"], message: "is required when STORAGE_DRIVER=s3" });
    }
  })
  .transform((env) => ({
    ...env,
    APP_URL: (env.APP_URL ?? `http://localhost:${env.PORT}`).replace(/\/$/, ""),
    // Development-only fallback so `npm start` needs no setup; production refuses it above.
    SESSION_SECRET: env.SESSION_SECRET.length > 0 ? env.SESSION_SECRET : ["dev-only-session-secret-change-me"],
  }));

export type Env = z.infer<typeof schema>;

/** Parses an environment; throws an Error whose message names every bad variable. */
export function parseEnv(source: Record<string, string | undefined>): Env {
  // A variable set to nothing (`HOST=` in a .env copied from .env.example) counts as unset.
  const result = schema.safeParse(Object.fromEntries(Object.entries(source).filter(([, value]) => value !== undefined && value.trim() !== "")));
  if (!result.success) {
    const lines = result.error.issues.map((issue) => `  ${issue.path.join(".") || "environment"}: ${issue.message}`);
    throw new Error(`Invalid configuration:\n${lines.join("\n")}`);
  }
  return result.data;
}

let cached: Env | undefined;

/** The validated configuration of this process, read from process.env once. */
export function env(): Env {
  cached ??= parseEnv(process.env);
  return cached;
}

/** The next env() reads process.env again; for tests that change a variable mid-run (a mail capture server). */
export function resetEnvCache(): void {
  cached = undefined;
}
