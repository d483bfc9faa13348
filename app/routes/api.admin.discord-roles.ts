// GET /api/admin/discord-roles: whether Discord roles are on, the role mappings with their holders,
// and the latest queued role changes. POST: a new mapping (the admin page's schema). Admins only
// (docs/api.md#discord-roles).
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { z } from "zod";
import { handleApi, methodNotAllowed, readJson } from "~/api.server";
import { createRoleMapping, discordOverview } from "~/models/discord-roles.server";
import { requireApiAdmin } from "~/models/session.server";
import { DISCORD_MESSAGES } from "~/utils/discord-schemas";

const NO_STORE = { "Cache-Control": "private, no-store" };

export function loader({ request }: LoaderFunctionArgs) {
  return handleApi(DISCORD_MESSAGES.fetchFailed, async () => {
    await requireApiAdmin(request);
    return json(await discordOverview(), { headers: NO_STORE });
  });
}

export function action({ request }: ActionFunctionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  return handleApi(DISCORD_MESSAGES.createFailed, async () => {
    const admin = await requireApiAdmin(request);
    // Parsed by the model with the form's schema (roleMappingSchema).
    const body = await readJson(request, z.unknown());
    return json({ mapping: await createRoleMapping(admin, body) }, { status: 201, headers: NO_STORE });
  });
}
