// POST /api/library/posts/{id}/compatibility {verdict, versionId?, patchId?}: a player's answer,
// "works" or "broken", for a version of the post they downloaded (the newest unless named) on a game
// patch (the current one unless named). One answer per account, version and patch; sending again
// changes it. Refused (403) for an account without a completed download of the post
// (docs/api.md#game-patches).
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, methodNotAllowed, readJson, requireIdParam } from "~/api.server";
import { voteOnPatch } from "~/models/game-patch.server";
import { requireApiUser } from "~/models/session.server";
import { PATCH_MESSAGES, patchVoteSchema } from "~/utils/game-patch-schemas";
import { LIBRARY_MESSAGES } from "~/utils/library-schemas";

export async function loader() {
  return methodNotAllowed();
}

export async function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi(PATCH_MESSAGES.failed, async () => {
    const user = await requireApiUser(request);
    const postId = requireIdParam(params.id, LIBRARY_MESSAGES.postNotFound);
    const input = await readJson(request, patchVoteSchema);
    return json({ message: PATCH_MESSAGES.voteSaved, confirmation: await voteOnPatch(user, postId, input) });
  });
}
