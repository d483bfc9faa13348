// GET /feeds/{token}.atom: the account's private Atom feed of new posts and new versions it may
// download. The token in the address is the credential (no session); an unknown or replaced
// token answers 404 like any missing page.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { feedForToken } from "~/models/update-notifications.server";

export async function loader({ params }: LoaderFunctionArgs) {
  const xml = await feedForToken(params.token ?? "");
  if (xml === null) {
    return new Response("Not found.", { status: 404, headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" } });
  }
  return new Response(xml, {
    headers: {
      "Content-Type": "application/atom+xml; charset=utf-8",
      // Personal: never in a shared cache, and a replaced token must stop answering at once.
      "Cache-Control": "private, no-cache",
      "X-Robots-Tag": "noindex",
      "Referrer-Policy": "no-referrer",
    },
  });
}
