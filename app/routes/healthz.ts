import { db } from "~/db.server";

/** 200 while the database answers, 503 otherwise (for load balancers and orchestrators). */
export async function loader() {
  try {
    await db.$queryRaw`SELECT 1`;
    return new Response("ok", { status: 200, headers: { "Content-Type": "text/plain", "Cache-Control": "no-store" } });
  } catch {
    return new Response("database unavailable", { status: 503, headers: { "Content-Type": "text/plain", "Cache-Control": "no-store" } });
  }
}
