import type { LoaderFunctionArgs } from "@remix-run/node";
import { finishProviderRedirect } from "~/provider-sign-in.server";

export async function loader({ request, context }: LoaderFunctionArgs) {
  return (await finishProviderRedirect("discord", request, context)).response;
}
