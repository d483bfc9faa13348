// POST /account/data: "Download my data" (on /account/export), a JSON file of everything stored
// about the account (docs/product.md#your-data). A POST, so no other site can make a logged-in
// browser fetch it. A resource route: its answer is the file itself, never a page.
import type { ActionFunctionArgs } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { exportAccountData } from "~/models/account-data.server";
import { DomainError } from "~/models/errors";
import { enforceRateLimit } from "~/models/rate-limit.server";
import { requireUser } from "~/session-guards.server";
import { redirectWithError } from "~/toast.server";

export async function action({ request }: ActionFunctionArgs) {
  const user = await requireUser(request);
  try {
    await enforceRateLimit(`export:user:${user.id}`, 10, 60 * 60 * 1000);
  } catch (error) {
    if (error instanceof DomainError) return redirectWithError("/account/export", error.message, { headers: error.headers });
    throw error;
  }
  const data = await exportAccountData(user.id);
  const day = data.exportedAt.slice(0, 10);
  return new Response(JSON.stringify(data, null, 2), {
    headers: {
      "Content-Type": "application/json; charset=utf-8",
      "Content-Disposition": `attachment; filename="creator-library-data-${day}.json"`,
      "Cache-Control": "private, no-store",
    },
  });
}

export function loader() {
  return redirect("/account/export");
}
