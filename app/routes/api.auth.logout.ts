import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi } from "~/api.server";
import { destroyUserSession } from "~/models/session.server";

async function logout(request: Request) {
  return handleApi("Logout failed.", async () =>
    json({ message: "Logged out successfully." }, { headers: { "Set-Cookie": await destroyUserSession(request), "Cache-Control": "no-store" } }),
  );
}

export const loader = ({ request }: LoaderFunctionArgs) => logout(request);
export const action = ({ request }: ActionFunctionArgs) => logout(request);
