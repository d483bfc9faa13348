// /admin/releases: the release timeline (docs/product.md#releases): scheduled publications and
// release steps of the next 60 days by day (the creator's time zone), what opened in the last 30,
// and for each "reached N · mailed M". Effective admins only. A plain page: no script is needed.
import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { listReleases, type ReleaseEvent } from "~/models/release.server";
import { listTiers } from "~/models/tier.server";
import { requireAdmin } from "~/session-guards.server";
import adminStyles from "~/styles/admin.css?url";
import { timeUntil } from "~/utils/access-words";
import { timelineCounts, timelineDays } from "~/utils/release-timeline";
import { clockWithUtc, useCreatorTimeZone } from "~/components/admin/release-admin";
import { personalPageHeaders } from "~/utils/page-headers";
import { RELEASES_AHEAD_DAYS, RELEASES_BEHIND_DAYS } from "~/utils/release-schemas";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: adminStyles }];

export const meta: MetaFunction = () => [{ title: "Releases · Admin · Creator Library" }];

export const headers = personalPageHeaders;

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAdmin(request);
  const now = new Date();
  const [releases, tiers] = await Promise.all([listReleases(now), listTiers()]);
  return data(
    { ...releases, tierTitles: Object.fromEntries(tiers.map((tier) => [tier.tierId, tier.title])), now: now.toISOString() },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

function what(event: ReleaseEvent, titles: Record<string, string>): string {
  if (event.kind === "publication") return "Publication";
  if (event.audience === "everyone") return "Free for everyone";
  return `Opens to ${titles[event.audience ?? ""] ?? "Unknown Tier"} and above`;
}

function Timeline({ events, titles, now, zone, empty }: { events: ReleaseEvent[]; titles: Record<string, string>; now: Date; zone: string; empty: string }) {
  if (events.length === 0) return <p className="muted">{empty}</p>;
  return (
    <div className="release-days" data-testid="release-timeline">
      {timelineDays(events, zone).map(({ day, events: today }) => (
        <section key={day} className="release-day" aria-label={day} data-testid="release-day">
          <h3 className="release-day-title">{day}</h3>
          <ol className="release-timeline">
            {today.map((event) => {
              const at = new Date(event.at);
              return (
                <li key={`${event.postId}-${event.kind}-${event.audience}-${event.at}`} className="release-event" data-testid="release-event">
                  <time dateTime={event.at}>
                    {clockWithUtc(at, zone)}
                    {at > now ? ` (${timeUntil(at, now)})` : ""}
                  </time>
                  <span className="release-what">
                    <Link to={`/library?search=${encodeURIComponent(event.postTitle)}`}>{event.postTitle}</Link>: {what(event, titles)}
                  </span>
                  <span className="muted" data-testid="release-counts">
                    {timelineCounts(event)}
                  </span>
                </li>
              );
            })}
          </ol>
        </section>
      ))}
    </div>
  );
}

export default function AdminReleases() {
  const { upcoming, recent, tierTitles, now } = useLoaderData<typeof loader>();
  const current = new Date(now);
  const zone = useCreatorTimeZone();
  return (
    <div className="admin-page stack">
      <p>
        <Link to="/admin">Back to the admin area</Link>
      </p>
      <h1>Releases</h1>
      <p>
        Scheduled publications and release steps by day, in {zone} (UTC beside). &ldquo;Reached&rdquo; counts the accounts an instant newly opens the post to;
        &ldquo;mailed&rdquo; the release notices sent for it. A post&apos;s steps are edited on its card in the <Link to="/library">library</Link>.
      </p>
      <section className="card" aria-labelledby="releases-upcoming">
        <h2 id="releases-upcoming">Next {RELEASES_AHEAD_DAYS} days</h2>
        <Timeline events={upcoming} titles={tierTitles} now={current} zone={zone} empty="Nothing is scheduled." />
      </section>
      <section className="card" aria-labelledby="releases-recent">
        <h2 id="releases-recent">Opened in the last {RELEASES_BEHIND_DAYS} days</h2>
        <Timeline events={recent} titles={tierTitles} now={current} zone={zone} empty="Nothing opened recently." />
      </section>
    </div>
  );
}
