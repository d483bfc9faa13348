import { parseEnv } from "~/env.server";

const base = { DATABASE_URL: "postgresql://postgres@127.0.0.1:5432/x" };

describe("parseEnv", () => {
  it("fills defaults for a minimal development setup", () => {
    const config = parseEnv(base);
    expect(config.PORT).toBe(3000);
    expect(config.APP_URL).toBe("http://localhost:3000");
    expect(config.STORAGE_DRIVER).toBe("local");
    expect(config.SESSION_SECRET).toHaveLength(1);
  });

  it("names a malformed variable", () => {
    expect(() => parseEnv({ ...base, PORT: "eighty" })).toThrow(/PORT/);
    expect(() => parseEnv({ ...base, DATABASE_URL: "mysql://x" })).toThrow(/DATABASE_URL: must be a postgresql/);
    expect(() => parseEnv({ ...base, CALLBACK_ORIGINS: "not a url" })).toThrow(/CALLBACK_ORIGINS/);
    expect(() => parseEnv({ ...base, SMTP_URL: "http://mail" })).toThrow(/SMTP_URL/);
    expect(() => parseEnv({ ...base, SHUTDOWN_DRAIN_SECONDS: "-1" })).toThrow(/SHUTDOWN_DRAIN_SECONDS/);
    expect(() => parseEnv({ ...base, SHUTDOWN_DRAIN_SECONDS: "5m" })).toThrow(/SHUTDOWN_DRAIN_SECONDS/);
  });

  it("gives transfers in flight minutes to finish on a stop unless told otherwise", () => {
    expect(parseEnv(base).SHUTDOWN_DRAIN_SECONDS).toBe(300);
    expect(parseEnv({ ...base, SHUTDOWN_DRAIN_SECONDS: "900" }).SHUTDOWN_DRAIN_SECONDS).toBe(900);
  });

  it("takes a variable set to nothing as unset, as a .env copied from .env.example has them", () => {
    const config = parseEnv({ ...base, HOST: "", WEB_CONCURRENCY: "", HEADERS_TIMEOUT_MS: " ", SMTP_URL: "", S3_ENDPOINT: "", FAKE_PROVIDERS_URL: "" });
    expect(config.HOST).toBeUndefined();
    expect(config.WEB_CONCURRENCY).toBeUndefined();
    expect(config.SMTP_URL).toBeUndefined();
  });

  it("takes a metrics token of 24+ characters without spaces, and names a weak one", () => {
    expect(parseEnv(base).METRICS_TOKEN).toBeUndefined();
    expect(parseEnv({ ...base, METRICS_TOKEN: "a".repeat(24) }).METRICS_TOKEN).toBe("a".repeat(24));
    expect(() => parseEnv({ ...base, METRICS_TOKEN: "short" })).toThrow(/METRICS_TOKEN/);
    expect(() => parseEnv({ ...base, METRICS_TOKEN: `${"a".repeat(20)} ${"b".repeat(20)}` })).toThrow(/METRICS_TOKEN/);
  });

  it("names a missing database URL", () => {
    expect(() => parseEnv({})).toThrow(/DATABASE_URL/);
  });

  it("requires strong session secrets and refuses fake providers in production", () => {
    expect(() => parseEnv({ ...base, NODE_ENV: "production" })).toThrow(/SESSION_SECRET/);
    const secret = "x".repeat(32);
    expect(() => parseEnv({ ...base, NODE_ENV: "production", SESSION_SECRET: secret, FAKE_PROVIDERS_URL: "http://127.0.0.1:9" })).toThrow(/FAKE_PROVIDERS_URL/);
    expect(parseEnv({ ...base, NODE_ENV: "production", SESSION_SECRET: `${secret},${"y".repeat(40)}` }).SESSION_SECRET).toHaveLength(2);
  });

  it("keeps lists tidy: admin emails lowercased, callback origins reduced to origins", () => {
    const config = parseEnv({ ...base, ADMIN_EMAILS: " Boss@Example.com ,x@y.z", CALLBACK_ORIGINS: "https://tools.example.com/path" });
    expect(config.ADMIN_EMAILS).toEqual(["boss@example.com", "x@y.z"]);
    expect(config.CALLBACK_ORIGINS).toEqual(["https://tools.example.com"]);
  });
});
