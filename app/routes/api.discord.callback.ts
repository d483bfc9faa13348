import type { LoaderFunctionArgs } from "@remix-run/node";
import { finishProviderSignIn } from "~/models/auth.server";

export const loader = ({ request }: LoaderFunctionArgs) => finishProviderSignIn("discord", request);
