import type { LoaderFunctionArgs } from "@remix-run/node";
import { startProviderSignIn } from "~/models/auth.server";

export const loader = ({ request }: LoaderFunctionArgs) => startProviderSignIn("google", request);
