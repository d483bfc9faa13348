// GET /api/admin/users?search=&page=&pageSize= : one page of users (admins only).
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed } from "~/api.server";
import { searchUsers } from "~/models/admin-users.server";
import { requireApiAdmin } from "~/models/session.server";
import { ADMIN_MESSAGES, parseUserSearch } from "~/utils/admin-schemas";

export async function loader({ request }: LoaderFunctionArgs) {
  return handleApi(ADMIN_MESSAGES.fetchUsersFailed, async () => {
    await requireApiAdmin(request);
    const query = parseUserSearch(new URL(request.url).searchParams);
    return json(await searchUsers(query));
  });
}

export async function action() {
  return methodNotAllowed();
}
