// /account/notifications: "Updates by feed and mail". The private Atom feed's address (shown once,
// right after it is made, with Copy) with "Regenerate feed link", and the two opt-in digest mails. Plain
// forms posting here; with JavaScript they go through fetchers and show pending states.
import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { useActionData, useFetcher, useLoaderData } from "@remix-run/react";
import { AccountArea } from "~/components/account/account-tabs";
import { FeedAddress } from "~/components/account/feed-address";
import { accountPanelLinks } from "~/components/account/shop-email-panel";
import { SubmitButton } from "~/components/form";
import { getUpdateSettings, regenerateFeedToken, saveUpdatePreferences } from "~/models/update-notifications.server";
import { env } from "~/env.server";
import { requireUser } from "~/session-guards.server";
import { formatDay } from "~/utils/dates";
import { formRefusal } from "~/utils/form-failure.server";
import { readPageForm } from "~/utils/page-form.server";
import { personalPageHeaders } from "~/utils/page-headers";
import { UPDATE_MESSAGES, updatePreferencesSchema } from "~/utils/update-schemas";
import { formInput, parseForm } from "~/utils/form-fields";
import { z } from "zod";

export const links: LinksFunction = () => accountPanelLinks();

export const meta: MetaFunction = () => [{ title: "Updates by feed and mail · Creator Library" }];

export const headers = personalPageHeaders;

const NO_STORE = { "Cache-Control": "private, no-store" };

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const digestHours = env().UPDATE_DIGEST_HOURS;
  return data({ settings: await getUpdateSettings(user.id), hasEmail: Boolean(user.email), digestHours }, { headers: NO_STORE });
}

type ActionData = { intent: "feed" | "preferences"; ok: boolean; message: string; feedUrl?: string };

/** Which of the page's forms was sent. */
const notificationsFormSchema = z.object({ intent: z.enum(["feed", "preferences"]).catch("preferences") });

export async function action({ request }: ActionFunctionArgs) {
  const user = await requireUser(request);
  const form = await readPageForm(request);
  const { intent } = parseForm(form, notificationsFormSchema);
  try {
    if (intent === "feed") {
      const { url } = await regenerateFeedToken(user.id);
      return data<ActionData>({ intent, ok: true, message: UPDATE_MESSAGES.feedCreated, feedUrl: url }, { headers: NO_STORE });
    }
    // The checkboxes as posted: the model checks them with updatePreferencesSchema.
    await saveUpdatePreferences(user.id, formInput(form, updatePreferencesSchema));
    return data<ActionData>({ intent, ok: true, message: UPDATE_MESSAGES.preferencesSaved }, { headers: NO_STORE });
  } catch (error) {
    const refusal = formRefusal(error, intent === "feed" ? UPDATE_MESSAGES.feedFailed : UPDATE_MESSAGES.saveFailed);
    return data<ActionData>({ intent, ok: false, message: refusal.message }, { status: refusal.status, headers: { ...NO_STORE, ...refusal.headers } });
  }
}

function Result({ data }: { data: ActionData | undefined }) {
  if (!data) return null;
  return (
    <p role={data.ok ? "status" : "alert"} className={data.ok ? "" : "form-error"}>
      {data.message}
    </p>
  );
}

export default function UpdateNotificationsPage() {
  const { settings, hasEmail, digestHours } = useLoaderData<typeof loader>();
  const posted = useActionData<typeof action>();
  const feed = useFetcher<typeof action>({ key: "update-feed" });
  const preferences = useFetcher<typeof action>({ key: "update-preferences" });
  // Without JavaScript the forms post to this page and the answer is the action data.
  const feedResult = feed.data ?? (posted?.intent === "feed" ? posted : undefined);
  const preferencesResult = preferences.data ?? (posted?.intent === "preferences" ? posted : undefined);
  return (
    <AccountArea current="notifications">
      <section className="card account-panel" aria-labelledby="feed-title">
        <h1 id="feed-title">Updates by feed and mail</h1>
        <section className="account-section" aria-labelledby="feed-subtitle">
          <h2 id="feed-subtitle" className="account-subheading">
            Your private feed
          </h2>
          <p>An Atom feed of new posts and new versions you can download, for any feed reader. Its address works without logging in, so keep it to yourself.</p>
          {feedResult?.ok && feedResult.feedUrl ? (
            <div className="stack" data-testid="feed-url">
              <Result data={feedResult} />
              <FeedAddress url={feedResult.feedUrl} />
            </div>
          ) : (
            <>
              <Result data={feedResult} />
              <p className="muted">
                {settings.hasFeed && settings.feedCreatedAt
                  ? `Your feed link was made on ${formatDay(settings.feedCreatedAt)}. For your safety it is shown only once; make a new one if you lost it.`
                  : "You have no feed link yet."}
              </p>
            </>
          )}
          <feed.Form method="post" action="/account/notifications" className="stack">
            {settings.hasFeed ? <p>Making a new link stops the old one at once: feed readers that use it get nothing more.</p> : null}
            <SubmitButton intent="feed" className="button-secondary" pending={feed.state !== "idle"} pendingLabel="Making a link...">
              {settings.hasFeed ? "Regenerate feed link" : "Make my feed link"}
            </SubmitButton>
          </feed.Form>
        </section>

        <section className="account-section" aria-labelledby="mails-subtitle">
          <h2 id="mails-subtitle" className="account-subheading">
            Mails
          </h2>
          <p>
            {digestHours > 0
              ? `New versions and new posts come in one digest, at most one every ${digestHours} hours, listing what is new since the last one. A post opening to your tier can instead be mailed on its own, at once. Every mail has a one-click unsubscribe link.`
              : "Update mails are switched off on this site for now; your choices are kept."}
          </p>
          {!hasEmail ? <p className="form-error">Your account has no email address, so no mail can reach you.</p> : null}
          <preferences.Form method="post" action="/account/notifications" className="stack">
            <fieldset className="field-group account-choices">
              <legend>Mail me when there is</legend>
              <label>
                <input type="checkbox" name="newVersions" defaultChecked={settings.newVersions} /> a new version of something I own
              </label>
              <label>
                <input type="checkbox" name="newPosts" defaultChecked={settings.newPosts} /> a new post for my tier
              </label>
              <label>
                <input type="checkbox" name="releases" defaultChecked={settings.releases} /> a post opening to my tier, in its own mail at once (outside the
                digest)
              </label>
            </fieldset>
            <Result data={preferencesResult} />
            <SubmitButton intent="preferences" pending={preferences.state !== "idle"} pendingLabel="Saving...">
              Save mail choices
            </SubmitButton>
          </preferences.Form>
        </section>
      </section>
    </AccountArea>
  );
}
