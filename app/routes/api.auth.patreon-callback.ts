import type { LoaderFunctionArgs } from "@remix-run/node";
import { syncRecentlyLinkedMembers } from "~/models/patreon-membership.server";
import { finishProviderRedirect } from "~/provider-sign-in.server";
import { errorFields, log } from "~/logger.server";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { response, outcome } = await finishProviderRedirect("patreon", request, context);
  // After a successful sign-in or link the pledge history is only in the creator's members
  // list: fetch it in the background, so the page does not wait for the platform (the
  // interval job would catch up anyway).
  if (outcome !== "other") {
    void syncRecentlyLinkedMembers().catch((error: unknown) => log().error(errorFields(error), "pledge history after Patreon link failed"));
  }
  return response;
}
