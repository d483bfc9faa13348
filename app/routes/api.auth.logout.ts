import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { apiError, handleApi } from "~/api.server";
import { destroyUserSession } from "~/models/session.server";

async function logout(request: Request) {
  return handleApi("Logout failed.", async () =>
    json({ message: "Logged out successfully." }, { headers: { "Set-Cookie": await destroyUserSession(request), "Cache-Control": "no-store" } }),
  );
}

// The spec's GET logout stays, but a link or redirect from another site cannot end the session
// (a top-level navigation carries the SameSite=Lax cookie; the browser marks it cross-site).
export const loader = ({ request }: LoaderFunctionArgs) =>
  request.headers.get("Sec-Fetch-Site") === "cross-site" ? apiError(403, "Cross-site request refused.", { "Cache-Control": "no-store" }) : logout(request);
export const action = ({ request }: ActionFunctionArgs) => logout(request);
