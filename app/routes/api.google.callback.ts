import type { LoaderFunctionArgs } from "@remix-run/node";
import { finishProviderRedirect } from "~/models/provider-link.server";

export async function loader({ request }: LoaderFunctionArgs) {
  return (await finishProviderRedirect("google", request)).response;
}
