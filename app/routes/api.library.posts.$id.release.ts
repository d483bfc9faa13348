import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, readJson, requireIdParam } from "~/api.server";
import { releaseRequirementWarnings } from "~/models/post-requirements.server";
import { setReleaseSteps } from "~/models/release.server";
import { requireApiAdmin } from "~/models/session.server";
import { LIBRARY_MESSAGES } from "~/utils/library-schemas";
import { RELEASE_MESSAGES, releaseStepsSchema } from "~/utils/release-schemas";

/**
 * PUT /api/library/posts/{id}/release {steps} or {preset}: the post's release steps, admins only
 * (docs/api.md#releases); answers the post and the requirement `warnings` of the saved plan.
 */
export async function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== "PUT") return methodNotAllowed();
  return handleApi(RELEASE_MESSAGES.failed, async () => {
    const admin = await requireApiAdmin(request);
    const id = requireIdParam(params.id, LIBRARY_MESSAGES.postNotFound);
    const input = await readJson(request, releaseStepsSchema);
    const post = await setReleaseSteps(admin, id, input);
    // Saved either way: a step that opens the post before its audience can get what it requires is a warning.
    return json({ post, warnings: await releaseRequirementWarnings(id) });
  });
}
