import { isRouteErrorResponse, Link } from "@remix-run/react";

export function ErrorPage({ status, title, message }: { status: number; title: string; message?: string }) {
  return (
    <section className="error-page" aria-labelledby="error-title">
      <p className="error-status">{status}</p>
      <h1 id="error-title">{title}</h1>
      <p>{message ?? (status === 404 ? "There is nothing at this address." : "Please try again in a moment.")}</p>
      <Link to="/" className="button">
        Back to Home
      </Link>
    </section>
  );
}

/**
 * The page of a request a route refused with a 4xx answer (nothing at the address, a body that is
 * not a form), in the answer's words (`{ error }`, else its status text); null for any other
 * error, which the route's own boundary shows.
 */
export function refusedRequestPage(error: unknown): JSX.Element | null {
  if (!isRouteErrorResponse(error) || error.status >= 500) return null;
  if (error.status === 404) return <ErrorPage status={404} title="Page not found" />;
  const said = (error.data as { error?: unknown } | null)?.error;
  return <ErrorPage status={error.status} title={typeof said === "string" ? said : error.statusText} message="Please go back and try again." />;
}
