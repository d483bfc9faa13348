// /admin/access-check?user=…&post=… (or userId=…): an admin's "Check access"
// (docs/product.md#access-explained). The user editor's form loads this with a fetcher, its user
// fixed; this page picks the user too: an email, name, number or id the server resolves (several
// matches are offered to choose from), with suggestions as the admin types when JavaScript runs.
import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { Form, Link, useLoaderData, useNavigation } from "@remix-run/react";
import { AccessCheckResult, type AccessCheckData } from "~/components/access-check";
import { adminHref } from "~/components/admin/admin-href";
import { UserPickerInput } from "~/components/admin/user-picker";
import { ACCESS_CHECK_MESSAGES, checkAccess } from "~/models/access.server";
import { pickedUserById, pickedUserRef, pickUser, type PickedUser } from "~/models/admin-user-pick.server";
import { requireAdmin } from "~/session-guards.server";
import adminStyles from "~/styles/admin.css?url";
import { formRefusal } from "~/utils/form-failure.server";
import { personalPageHeaders } from "~/utils/page-headers";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: adminStyles }];

export const meta: MetaFunction = () => [{ title: "Check access · Admin · Creator Library" }];

export const headers = personalPageHeaders;

type PageData = AccessCheckData & {
  /** The account checked (or picked), for the "Back to the user" link. */
  userId: string;
  /** What the user field shows: what was typed, or the picked account's email. */
  userRef: string;
  /** Several accounts match what was typed: the admin chooses one. */
  candidates: PickedUser[];
};

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAdmin(request);
  const url = new URL(request.url);
  const typedUser = (url.searchParams.get("user") ?? "").slice(0, 200);
  const postRef = (url.searchParams.get("post") ?? "").slice(0, 300);
  const headers = { "Cache-Control": "private, no-store" };
  let userId = (url.searchParams.get("userId") ?? "").slice(0, 64);
  const page = (fields: Partial<PageData>, status = 200) =>
    data<PageData>({ check: null, error: null, postRef, userId, userRef: typedUser, candidates: [], ...fields }, { status, headers });
  const typed = typedUser.trim();
  // Opened from the user editor or the admin page: nothing asked yet, so nothing refused.
  if (!url.searchParams.has("post")) {
    const known = userId ? await pickedUserById(userId) : null;
    return page({ userRef: typedUser || (known ? pickedUserRef(known) : "") });
  }
  if ((!userId && !typed) || !postRef.trim()) return page({ error: "Choose a user and a post." }, 400);
  try {
    let userRef = typedUser;
    // A typed user is resolved by the server (several matches: the admin chooses); a chosen one comes by id.
    if (typed) {
      const pick = await pickUser(typed);
      if (!pick.user) return page({ candidates: pick.candidates, userId: "" });
      userId = pick.user.id;
      userRef = pickedUserRef(pick.user);
    }
    const check = await checkAccess(userId, postRef);
    if (!userRef) {
      const known = await pickedUserById(userId);
      userRef = known ? pickedUserRef(known) : userId;
    }
    return page({ check, userId, userRef });
  } catch (error) {
    const refusal = formRefusal(error, ACCESS_CHECK_MESSAGES.failed);
    return page({ error: refusal.message }, refusal.status);
  }
}

export default function AccessCheckPage() {
  const data = useLoaderData<typeof loader>();
  const navigation = useNavigation();
  const busy = navigation.state !== "idle" && navigation.location?.pathname === "/admin/access-check";
  return (
    <div className="admin-page">
      <section className="card" aria-labelledby="access-check-title">
        <h1 id="access-check-title">Check access</h1>
        <p className="muted" id="access-check-user-hint">
          The user: an email, a name, a leak-trace number or an account id. Suggestions appear as you type.
        </p>
        {data.error ? (
          <p className="form-error" role="alert">
            {data.error}
          </p>
        ) : null}
        {data.candidates.length > 0 ? (
          <div role="status" data-testid="access-check-candidates">
            <p>Several users match “{data.userRef}”: choose one.</p>
            <ul>
              {data.candidates.map((candidate) => (
                <li key={candidate.id}>
                  <Link to={`/admin/access-check?${new URLSearchParams({ userId: candidate.id, post: data.postRef }).toString()}`}>
                    {candidate.label}
                    {candidate.email && candidate.email !== candidate.label ? ` (${candidate.email})` : ""}, No. {candidate.number}
                  </Link>
                </li>
              ))}
            </ul>
          </div>
        ) : null}
        {data.check ? <AccessCheckResult check={data.check} /> : null}
        <Form method="get" action="/admin/access-check" className="access-check-form" key={`${data.userId}|${data.postRef}`}>
          <UserPickerInput id="access-check-user" name="user" label="User" defaultValue={data.userRef} describedBy="access-check-user-hint" />
          <div className="field">
            <label htmlFor="access-check-post">Post (title or id)</label>
            <input id="access-check-post" name="post" defaultValue={data.postRef} required autoComplete="off" />
          </div>
          <button type="submit" className="button-secondary" disabled={busy} aria-busy={busy || undefined}>
            {busy ? "Checking…" : "Check access"}
          </button>
        </Form>
        <p>{data.userId ? <Link to={adminHref({ user: data.userId })}>Back to the user</Link> : <Link to="/admin">Back to admin</Link>}</p>
      </section>
    </div>
  );
}
