import type { MetaFunction } from "@remix-run/node";
import { ErrorPage } from "~/components/error-page";

export const meta: MetaFunction = () => [{ title: "Page not found · Creator Library" }];

export async function loader() {
  throw new Response("Not found", { status: 404 });
}

/** A form posted to an address with no page is not a wrong method (405): there is nothing here. */
export async function action() {
  throw new Response("Not found", { status: 404 });
}

export default function NotFound() {
  return <ErrorPage status={404} title="Page not found" />;
}

export function ErrorBoundary() {
  return <ErrorPage status={404} title="Page not found" />;
}
