// /admin/access-check?userId=…&post=…: an admin's "Check access" (docs/product.md#access-explained).
// The user editor's form loads this with a fetcher; without JavaScript it is this page.
import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { json } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { AccessCheckResult, type AccessCheckData } from "~/components/access-check";
import { ACCESS_CHECK_MESSAGES, checkAccess } from "~/models/access.server";
import { requireAdmin } from "~/session-guards.server";
import adminStyles from "~/styles/admin.css";
import { formRefusal } from "~/utils/form-failure.server";
import { personalPageHeaders } from "~/utils/page-headers";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: adminStyles }];

export const meta: MetaFunction = () => [{ title: "Check access · Creator Library" }];

export const headers = personalPageHeaders;

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAdmin(request);
  const url = new URL(request.url);
  const userId = (url.searchParams.get("userId") ?? "").slice(0, 64);
  const postRef = (url.searchParams.get("post") ?? "").slice(0, 300);
  const headers = { "Cache-Control": "private, no-store" };
  // Opened from the user editor: nothing asked yet, so nothing refused.
  if (!url.searchParams.has("post")) return json<AccessCheckData & { userId: string }>({ check: null, error: null, postRef, userId }, { headers });
  if (!userId || !postRef.trim())
    return json<AccessCheckData & { userId: string }>({ check: null, error: "Choose a user and a post.", postRef, userId }, { status: 400, headers });
  try {
    return json<AccessCheckData & { userId: string }>({ check: await checkAccess(userId, postRef), error: null, postRef, userId }, { headers });
  } catch (error) {
    const refusal = formRefusal(error, ACCESS_CHECK_MESSAGES.failed);
    return json<AccessCheckData & { userId: string }>({ check: null, error: refusal.message, postRef, userId }, { status: refusal.status, headers });
  }
}

export default function AccessCheckPage() {
  const data = useLoaderData<typeof loader>();
  return (
    <div className="admin-page">
      <section className="card" aria-labelledby="access-check-title">
        <h1 id="access-check-title">Check access</h1>
        {data.error ? (
          <p className="form-error" role="alert">
            {data.error}
          </p>
        ) : null}
        {data.check ? <AccessCheckResult check={data.check} /> : null}
        <form method="get" action="/admin/access-check" className="access-check-form">
          <input type="hidden" name="userId" value={data.userId} />
          <div className="field">
            <label htmlFor="access-check-post">Post (title or id)</label>
            <input id="access-check-post" name="post" defaultValue={data.postRef} required autoComplete="off" />
          </div>
          <button type="submit" className="button-secondary">
            Check access
          </button>
        </form>
        <p>
          <Link to={`/admin?user=${encodeURIComponent(data.userId)}`}>Back to the user</Link>
        </p>
      </section>
    </div>
  );
}
