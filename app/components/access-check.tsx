// "Check access" in the admin user editor: a user and a post in, the download decision and its
// explanation out. A GET form to /admin/access-check: without JavaScript it opens that page,
// with it the answer appears in place.
import { useFetcher } from "@remix-run/react";
import { useId } from "react";
import { NearMisses } from "~/components/access-ways";
import type { AccessCheck } from "~/models/access.server";

export type AccessCheckData = { check: AccessCheck | null; error: string | null; postRef: string };

export function AccessCheckResult({ check }: { check: AccessCheck }) {
  const { access } = check;
  return (
    <div className="access-check-result" role="status" data-testid="access-check-result">
      <p>
        <strong>{check.verdict}</strong> “{check.post.title}” ({check.user.label}, No. {check.user.number}).
      </p>
      <p>{access.allowed ? `Unlocked: ${access.summary}.` : "Locked by the entitlement rule."}</p>
      {check.blockers.length > 0 ? <p>But the download endpoint refuses it: the user {check.blockers.join(", and ")}.</p> : null}
      {!access.allowed ? <NearMisses misses={access.misses} heading="Near misses:" /> : null}
      {check.kept.length > 0 ? (
        <ul data-testid="access-check-kept">
          {check.kept.map((line) => (
            <li key={line}>{line}: that version can still be downloaded.</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

export function AccessCheckForm({ userId, posts, postRef = "" }: { userId: string; posts: readonly { postId: string; title: string }[]; postRef?: string }) {
  const fetcher = useFetcher<AccessCheckData>();
  const fieldId = useId();
  const listId = useId();
  const busy = fetcher.state !== "idle";
  return (
    <div className="access-check" data-testid="access-check">
      <h3>Check access</h3>
      <fetcher.Form method="get" action="/admin/access-check" className="access-check-form">
        <input type="hidden" name="userId" value={userId} />
        <div className="field">
          <label htmlFor={fieldId}>Post (title or id)</label>
          <input id={fieldId} name="post" list={listId} defaultValue={postRef} required autoComplete="off" />
          <datalist id={listId}>
            {posts.map((post) => (
              <option key={post.postId} value={post.title} />
            ))}
          </datalist>
        </div>
        <button type="submit" className="button-secondary" disabled={busy} aria-busy={busy}>
          {busy ? "Checking…" : "Check access"}
        </button>
      </fetcher.Form>
      {fetcher.data?.error ? (
        <p className="form-error" role="alert">
          {fetcher.data.error}
        </p>
      ) : null}
      {fetcher.data?.check ? <AccessCheckResult check={fetcher.data.check} /> : null}
    </div>
  );
}
