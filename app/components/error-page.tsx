import { Link } from "@remix-run/react";

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
