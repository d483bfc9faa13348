import type { LoaderFunctionArgs } from "@remix-run/node";
import { startProviderSignIn } from "~/provider-sign-in.server";

export const loader = ({ request }: LoaderFunctionArgs) => startProviderSignIn("google", request);
