// GET /library/{postId}/versions: the post's versions a picked file is compared with in the
// browser ("Verify a file", app/components/verify-file.tsx). Public like the library itself.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { handleApi, requireIdParam } from "~/api.server";
import { getCurrentUser } from "~/models/session.server";
import { listVerifiableVersions } from "~/models/version-check.server";
import { LIBRARY_MESSAGES } from "~/utils/library-schemas";
import { VERIFY_MESSAGES } from "~/utils/verify-file";

export async function loader({ request, params }: LoaderFunctionArgs) {
  return handleApi(VERIFY_MESSAGES.versionsFailed, async () => {
    const postId = requireIdParam(params.postId, LIBRARY_MESSAGES.postNotFound);
    const versions = await listVerifiableVersions(await getCurrentUser(request), postId);
    return json({ versions }, { headers: { "Cache-Control": "private, no-cache" } });
  });
}
