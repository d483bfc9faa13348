// The client's address for per-address rate limits.
import { env } from "~/env.server";

/** The connection's address the HTTP server passes in the load context (server/app.ts). */
function socketAddressOf(context: unknown): string | null {
  const value = (context as { clientAddress?: unknown } | null | undefined)?.clientAddress;
  return typeof value === "string" && value ? value.slice(0, 64) : null;
}

/**
 * With CLIENT_IP_HEADER (a header our own proxy writes) its last entry, the one that proxy
 * appended; otherwise the connection's own address from the load context, never a header the
 * client could write. Null when neither is known (route modules called without the HTTP server).
 * Routes pass the result on: strategies and models never see the load context.
 */
export function clientAddress(request: Request, context: unknown): string | null {
  const header = env().CLIENT_IP_HEADER;
  if (header) {
    const value = request.headers.get(header);
    const last = value?.split(",").pop()?.trim();
    return last ? last.slice(0, 64) : null;
  }
  return socketAddressOf(context);
}
