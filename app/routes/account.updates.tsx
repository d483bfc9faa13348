// /account/updates: "Updates for you", the owned posts whose downloaded version is behind the
// current one, most recently updated first, each with its Download button, and "Download all";
// or, when nothing is behind, "You are up to date." with a way to the library.
import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { AccountArea } from "~/components/account/account-tabs";
import { DownloadAllUpdates } from "~/components/download-all-updates";
import { accountPanelLinks } from "~/components/account/shop-email-panel";
import { listMyUpdates } from "~/models/my-library.server";
import { listComingFor } from "~/models/update-notifications.server";
import { requireUser } from "~/session-guards.server";
import { timeUntil } from "~/utils/access-words";
import { formatDay } from "~/utils/dates";
import { isEffectiveAdmin } from "~/utils/entitlement";
import { formatFileSize } from "~/utils/file-size";
import { personalPageHeaders } from "~/utils/page-headers";

export const links: LinksFunction = () => accountPanelLinks();

export const meta: MetaFunction = () => [{ title: "Updates for you · Creator Library" }];

export const headers = personalPageHeaders;

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const [updates, coming] = await Promise.all([listMyUpdates(user), listComingFor(user)]);
  return data(
    { updates, coming, now: new Date().toISOString(), tosAccepted: user.tosAccepted || isEffectiveAdmin(user) },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

export default function UpdatesPage() {
  const { updates, coming, now, tosAccepted } = useLoaderData<typeof loader>();
  return (
    <AccountArea current="updates">
      <section className="card account-panel" aria-labelledby="updates-title">
        <h1 id="updates-title">Updates for you</h1>
        <p>Posts you own that changed since you last downloaded them, most recently updated first.</p>
        {!tosAccepted && updates.length > 0 ? (
          <p className="form-error">
            Accept the terms of service in the <Link to="/library">library</Link> before downloading.
          </p>
        ) : null}
        <DownloadAllUpdates items={updates.map((update) => ({ postId: update.postId, title: update.title, fileId: update.variant?.fileId ?? null }))}>
          <ul className="updates-list" data-testid="updates-list">
            {updates.map((update) => (
              <li key={update.postId} className="updates-item">
                <div>
                  <strong>{update.title}</strong>
                  <span className="updates-versions">
                    Your version {update.fromVersion} → now {update.toVersion}
                  </span>
                  {update.variant ? <span className="muted"> · {update.variant.label} (your variant)</span> : null}
                  {update.updatedAt ? <span className="muted"> · updated {formatDay(update.updatedAt)}</span> : null}
                </div>
                {/* The library's own download action: terms first, then the file; no JavaScript needed. */}
                <form method="post" action="/library">
                  <input type="hidden" name="intent" value="download" />
                  <input type="hidden" name="postId" value={update.postId} />
                  {update.variant ? <input type="hidden" name="fileId" value={update.variant.fileId} /> : null}
                  {/* A variant's terms popup is the post page's, which keeps the file asked for. */}
                  <input type="hidden" name="back" value={update.variant ? `/library/${encodeURIComponent(update.postId)}` : "/library"} />
                  <button type="submit" className="button-secondary" aria-label={`Download ${update.title}`}>
                    Download{update.fileSize !== null ? ` (${formatFileSize(update.fileSize)})` : ""}
                  </button>
                </form>
              </li>
            ))}
          </ul>
        </DownloadAllUpdates>
      </section>
      {coming.length > 0 ? (
        <section className="card account-panel" aria-labelledby="coming-title" data-testid="coming-to-your-tier">
          <h2 id="coming-title">Coming to your tier</h2>
          <p>Posts the creator has planned to open to your membership, and when.</p>
          <ul className="updates-list">
            {coming.map((item) => (
              <li key={item.postId} className="updates-item">
                <Link to={`/library?search=${encodeURIComponent(item.title)}`}>{item.title}</Link>
                <span>
                  {formatDay(item.opensAt)} ({timeUntil(new Date(item.opensAt), new Date(now))})
                </span>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </AccountArea>
  );
}
