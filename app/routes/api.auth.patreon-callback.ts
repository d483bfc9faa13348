import type { LoaderFunctionArgs } from "@remix-run/node";
import { finishProviderSignIn } from "~/models/auth.server";
import { syncRecentlyLinkedMembers } from "~/models/patreon-membership.server";

export async function loader({ request }: LoaderFunctionArgs) {
  const response = await finishProviderSignIn("patreon", request);
  // A successful sign-in or link goes on to /auth/callback with a one-time code. The pledge
  // history is only in the creator's members list: fetch it in the background, so the page
  // does not wait for the platform (the interval job would catch up anyway).
  if (response.headers.get("Location")?.startsWith("/auth/callback?code=")) {
    void syncRecentlyLinkedMembers().catch((error: unknown) => console.error("pledge history after Patreon link failed", error));
  }
  return response;
}
