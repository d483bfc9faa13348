// GET /api/admin/users/{id}: one user with unlocked content, shop emails, downloads and pledges.
// PUT /api/admin/users/{id}: the edited user (without null fields); returns {message}.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { apiError, handleApi, methodNotAllowed, readJson, requireIdParam } from "~/api.server";
import { updateUserAsAdmin } from "~/models/admin-user-edits.server";
import { getAdminUser } from "~/models/admin-users.server";
import { requireApiAdmin } from "~/models/session.server";
import { ADMIN_MESSAGES, adminUserUpdateSchema, withoutNullFields } from "~/utils/admin-schemas";
import { z } from "zod";

export async function loader({ request, params }: LoaderFunctionArgs) {
  return handleApi(ADMIN_MESSAGES.fetchUserFailed, async () => {
    await requireApiAdmin(request);
    const userId = requireIdParam(params.id, ADMIN_MESSAGES.userNotFound);
    const user = await getAdminUser(userId);
    if (!user) return apiError(404, ADMIN_MESSAGES.userNotFound);
    return json(user);
  });
}

// Null fields mean "not sent": they are dropped before validation, never written.
const bodySchema = z
  .record(z.unknown(), { invalid_type_error: "Request body must be a user object." })
  .transform((body) => withoutNullFields(body))
  .pipe(adminUserUpdateSchema);

export async function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== "PUT") return methodNotAllowed();
  return handleApi(ADMIN_MESSAGES.updateUserFailed, async () => {
    const admin = await requireApiAdmin(request);
    const userId = requireIdParam(params.id, ADMIN_MESSAGES.userNotFound);
    const update = await readJson<z.output<typeof bodySchema>>(request, bodySchema);
    await updateUserAsAdmin(admin.id, userId, update);
    return json({ message: ADMIN_MESSAGES.userUpdated });
  });
}
