// /account/downloads: the user's download records (post, version, date, leak-trace number) and
// how long they are kept.
import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { AccountArea } from "~/components/account/account-tabs";
import { accountPanelLinks } from "~/components/account/shop-email-panel";
import { downloadRetentionDays, listMyDownloads } from "~/models/my-library.server";
import { requireUser } from "~/session-guards.server";
import { formatDay } from "~/utils/dates";
import { personalPageHeaders } from "~/utils/page-headers";

export const links: LinksFunction = () => accountPanelLinks();

export const meta: MetaFunction = () => [{ title: "My downloads · Creator Library" }];

export const headers = personalPageHeaders;

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const requested = Number(new URL(request.url).searchParams.get("page"));
  const page = Number.isInteger(requested) && requested > 0 ? Math.min(requested, 100_000) : 1;
  const list = await listMyDownloads(user, page);
  return data({ ...list, page, retentionDays: downloadRetentionDays(), number: user.number }, { headers: { "Cache-Control": "private, no-store" } });
}

export default function MyDownloadsPage() {
  const data = useLoaderData<typeof loader>();
  return (
    <AccountArea current="downloads">
      <section className="card account-panel" aria-labelledby="my-downloads-title">
        <h1 id="my-downloads-title">My downloads</h1>
        <p data-testid="retention-rule">
          Every download is recorded with the post, its version, the date and your leak-trace number ({data.number}), so a leaked file can be traced. Records
          older than {data.retentionDays} days are deleted automatically.
        </p>
        {data.total === 0 ? (
          <div className="account-empty" data-testid="no-downloads">
            <h2 className="account-empty-title">No downloads yet</h2>
            <p className="muted">What you download from the library shows up here, with its version and date.</p>
            <Link className="button" to="/library">
              Browse the library
            </Link>
          </div>
        ) : (
          <div className="table-scroll">
            <table>
              <caption className="visually-hidden">Your downloads, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Post</th>
                  <th scope="col">Version</th>
                  <th scope="col">Date</th>
                  <th scope="col">Leak-trace number</th>
                </tr>
              </thead>
              <tbody>
                {data.downloads.map((download) => (
                  <tr key={download.id}>
                    <td>{download.postTitle}</td>
                    <td>{download.version}</td>
                    <td>
                      <time dateTime={download.date}>{formatDay(download.date)}</time>
                    </td>
                    <td>{download.leakTraceNumber}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {data.pages > 1 ? (
          <nav className="button-row" aria-label="Download pages">
            {data.page > 1 ? (
              <Link className="button-secondary" to={`?page=${data.page - 1}`}>
                Newer
              </Link>
            ) : null}
            <span>
              Page {data.page} of {data.pages}
            </span>
            {data.page < data.pages ? (
              <Link className="button-secondary" to={`?page=${data.page + 1}`}>
                Older
              </Link>
            ) : null}
          </nav>
        ) : null}
      </section>
    </AccountArea>
  );
}
