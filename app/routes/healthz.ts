import { db } from "~/db.server";
import { withinTime } from "~/utils/within-time";

/**
 * How long the database may take to answer the check. Past it, it counts as unavailable: a
 * database that stopped answering (a frozen host, a dropped network) is as down as one that
 * refuses, and a health check that never answers tells a proxy nothing.
 */
const HEALTH_CHECK_TIMEOUT_MS = 2_000;

/** 200 while the database answers, 503 otherwise (for load balancers and orchestrators); the HTTP server adds Retry-After to every 503. */
export async function loader() {
  try {
    await withinTime(db.$queryRaw`SELECT 1`, HEALTH_CHECK_TIMEOUT_MS, () => new Error("no answer in time"));
    return new Response("ok", { status: 200, headers: { "Content-Type": "text/plain", "Cache-Control": "no-store" } });
  } catch {
    return new Response("database unavailable", { status: 503, headers: { "Content-Type": "text/plain", "Cache-Control": "no-store" } });
  }
}
