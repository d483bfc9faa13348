// The client's address for per-address rate limits.
import { env } from "~/env.server";

// The socket address of a request, remembered for code that sees only the Request (the
// remix-auth form strategies).
const socketAddresses = new WeakMap<Request, string>();

/** The connection's address the HTTP server passes in the load context (server/app.ts). */
function socketAddressOf(context: unknown): string | null {
  const value = (context as { clientAddress?: unknown } | null | undefined)?.clientAddress;
  return typeof value === "string" && value ? value.slice(0, 64) : null;
}

/**
 * With CLIENT_IP_HEADER (a header our own proxy writes) its last entry, the one that proxy
 * appended; otherwise the connection's own address from the load context, never a header the
 * client could write. Null when neither is known (route modules called without the HTTP server).
 */
export function clientAddress(request: Request, context?: unknown): string | null {
  const header = env().CLIENT_IP_HEADER;
  if (header) {
    const value = request.headers.get(header);
    const last = value?.split(",").pop()?.trim();
    return last ? last.slice(0, 64) : null;
  }
  const socket = socketAddressOf(context);
  if (socket) socketAddresses.set(request, socket);
  return socket ?? socketAddresses.get(request) ?? null;
}

/** A copy of the request for the form strategies that keeps the client's remembered address. */
export function withClientAddressOf(original: Request, copy: Request): Request {
  const socket = socketAddresses.get(original);
  if (socket) socketAddresses.set(copy, socket);
  return copy;
}
