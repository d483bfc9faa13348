import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Link, useActionData, useLoaderData, useRevalidator, useRouteError } from "@remix-run/react";
import { ErrorPage, logInBrowser, refusedRequestPage, unavailableRoutePage } from "~/components/error-page";
import { useState } from "react";
import { firstIssue } from "~/api.server";
import { Countdown } from "~/components/countdown";
import { InspirationAdmin } from "~/components/inspiration-admin";
import { InspirationPanelCard } from "~/components/inspiration-panel-card";
import { ConfirmDialog } from "~/components/confirm-dialog";
import {
  createInspirationPanel,
  storeInspirationImage,
  deleteInspirationPanel,
  inLiveRound,
  modeName,
  resetLikes,
  setLike,
  updateInspirationConfig,
  updateInspirationPanel,
} from "~/models/inspiration.server";
import { loadVotePage } from "~/models/inspiration-page.server";
import { DomainError } from "~/models/errors";
import { linkIdeaToPost, setVoterAccess } from "~/models/inspiration-shipped.server";
import { getCurrentUser } from "~/models/session.server";
import { redirectWithError, redirectWithSuccess } from "~/toast.server";
import { isVotingOpen } from "~/utils/countdown";
import { formRefusal } from "~/utils/form-failure.server";
import { inspirationConfigSchema, inspirationPanelSchema } from "~/utils/inspiration-schemas";
import inspirationStyles from "~/styles/inspiration.css?url";
import { isEffectiveAdmin } from "~/utils/entitlement";
import type { CacheableHandle } from "~/document-cache.server";
import { formFile, formFlag, formOptionalText, formTexts } from "~/utils/form-fields";
import { adminUploads } from "~/request-policy.server";
import { notePageTurnsAt } from "~/request-context.server";
import { readFormWithFiles } from "~/utils/upload.server";

const PAGE = "/inspiration-vote";

/** The whole second `at` falls in (epoch ms). */
const secondOf = (at: Date) => Math.floor(at.getTime() / 1000) * 1000;

export const links: LinksFunction = () => [{ rel: "stylesheet", href: inspirationStyles }];

/**
 * Guests all see the same page: a CDN may keep it briefly (app/document-cache.server.ts). A
 * reader's unchanged page is answered before Remix too, within the second its countdown shows
 * (the panels, likes, votes and the vote's settings are in its stamp, 026).
 */
export const handle: CacheableHandle = { guestCacheable: true, keptForReaders: true };

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: `${data?.config.title ?? "Inspiration Vote"} · Creator Library` }];

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await getCurrentUser(request);
  const now = new Date();
  const { config, panels: every, rights, shipped } = await loadVotePage(user, now);
  const isAdmin = isEffectiveAdmin(user);
  // The live round: a shipped idea has left it (listed under "Ideas that shipped"); admins keep it to manage.
  const panels = isAdmin ? every : every.filter(inLiveRound);
  const search = new URL(request.url).searchParams;
  // The data carry the second (below): a kept page turns at the next one.
  notePageTurnsAt(secondOf(now) + 1000);
  return json({
    config: {
      title: config.title,
      mode: modeName(config.mode),
      votingOpen: isVotingOpen(config, now),
      votingOpenFlag: config.votingOpen,
      votingEndTime: config.votingEndTime?.toISOString() ?? null,
    },
    // Whole seconds: the countdown's first render needs no more, and a page with the same data
    // within a second is the same document (kept rendered, app/document-cache.server.ts).
    serverNow: new Date(secondOf(now)).toISOString(),
    panels,
    shipped,
    loggedIn: Boolean(user),
    rights,
    isAdmin,
    editId: isAdmin ? search.get("edit") : null,
    deleting: isAdmin ? (panels.find((panel) => panel.id === search.get("delete")) ?? null) : null,
    confirmReset: isAdmin && search.get("confirm") === "reset",
  });
}

/** A refused admin form: its message and what was typed, so the form shows both (also without JavaScript). */
export type RefusedForm = { intent: "update-config" | "create-panel" | "update-panel"; id?: string; error: string; values: Record<string, string> };

function refuse(refused: RefusedForm) {
  // The form shows the message inline: plain JSON, so it is not toasted as well.
  return json(refused, { status: 400 });
}

// Admins upload an idea's image with its form, as panel images are uploaded on the home page.
export function requestPolicy() {
  return adminUploads("image");
}

export async function action({ request }: ActionFunctionArgs) {
  const user = await getCurrentUser(request);
  let form: FormData;
  try {
    // The idea forms carry an optional image file; every other form here is plain fields.
    form = await readFormWithFiles(request, { tooLargeMessage: "The image is too large (10 MB at most)." });
  } catch (error) {
    // A body that is no form is answered as readPageForm answers it; an image too large, with its message.
    if (error instanceof Response) throw error;
    return redirectWithError(PAGE, formRefusal(error, "Failed to update panel.").message);
  }
  const intent = formOptionalText(form, "intent");
  try {
    if (intent === "like" || intent === "patreon-like") {
      const panelId = formOptionalText(form, "panelId") ?? "";
      const wanted = formOptionalText(form, "like");
      try {
        await setLike(user, panelId, intent === "like" ? "LIKE" : "PATREON", wanted === undefined ? undefined : wanted === "true");
      } catch (error) {
        // With JavaScript the like button answers in place (no navigation, no scroll jump).
        if (error instanceof DomainError && formFlag(form, "respond", "json"))
          return json({ error: error.message }, { status: error.status, headers: error.headers });
        throw error;
      }
      return formFlag(form, "respond", "json") ? json({ ok: true }) : redirect(PAGE);
    }
    // Everything below changes the vote: admins only, checked here on the server.
    if (!isEffectiveAdmin(user)) return redirectWithError(PAGE, "You need to be logged in as an admin to perform this action.");
    switch (intent) {
      case "update-config": {
        const parsed = inspirationConfigSchema.safeParse({
          title: formOptionalText(form, "title"),
          mode: formOptionalText(form, "mode"),
          // The hidden "false" comes first; a ticked box adds "true" after it.
          votingOpen: formTexts(form, "votingOpen").includes("true"),
          // The form's time is UTC.
          votingEndTime: formOptionalText(form, "votingEndTime") ? `${formOptionalText(form, "votingEndTime")}Z` : null,
        });
        if (!parsed.success) {
          const values = {
            title: formOptionalText(form, "title") ?? "",
            mode: formOptionalText(form, "mode") ?? "",
            votingEndTime: formOptionalText(form, "votingEndTime") ?? "",
            votingOpen: String(formTexts(form, "votingOpen").includes("true")),
          };
          return refuse({ intent, error: firstIssue(parsed.error), values });
        }
        await updateInspirationConfig(user.id, parsed.data);
        return redirectWithSuccess(PAGE, "Configuration updated.");
      }
      case "reset-likes": {
        await resetLikes(user.id);
        return redirectWithSuccess(PAGE, "Likes reset.");
      }
      case "create-panel":
      case "update-panel": {
        // An uploaded image (admins only, checked above) becomes the idea's image URL; without one, the URL typed.
        const file = formFile(form, "image");
        let imageUrl = formOptionalText(form, "imageUrl");
        if (file) {
          try {
            imageUrl = await storeInspirationImage(Buffer.from(await file.arrayBuffer()));
          } catch (error) {
            const values = { imageUrl: imageUrl ?? "", title: formOptionalText(form, "title") ?? "", status: formOptionalText(form, "status") ?? "" };
            const id = intent === "update-panel" ? formOptionalText(form, "id") : undefined;
            return refuse({ intent, id, error: formRefusal(error, "Failed to upload the image.").message, values });
          }
        }
        const parsed = inspirationPanelSchema.safeParse({
          imageUrl,
          title: formOptionalText(form, "title"),
          status: formOptionalText(form, "status"),
        });
        const failure = intent === "create-panel" ? "Failed to create panel." : "Failed to update panel.";
        if (!parsed.success) {
          // Answered in place (not redirected) so the form knows it was not saved and keeps what was typed.
          const values = {
            imageUrl: formOptionalText(form, "imageUrl") ?? "",
            title: formOptionalText(form, "title") ?? "",
            status: formOptionalText(form, "status") ?? "",
          };
          return refuse({ intent, id: intent === "update-panel" ? formOptionalText(form, "id") : undefined, error: firstIssue(parsed.error), values });
        }
        try {
          if (intent === "create-panel") await createInspirationPanel(user.id, parsed.data);
          else await updateInspirationPanel(user.id, formOptionalText(form, "id") ?? "", parsed.data);
        } catch (error) {
          return redirectWithError(PAGE, formRefusal(error, failure).message);
        }
        return redirectWithSuccess(PAGE, intent === "create-panel" ? "Panel created." : "Panel updated.");
      }
      case "link-post":
      case "unlink-post": {
        const postRef = intent === "link-post" ? (formOptionalText(form, "post") ?? "").trim().slice(0, 300) : null;
        if (postRef === "") return redirectWithError(PAGE, "Enter the post's ID or title.");
        try {
          await linkIdeaToPost(user.id, formOptionalText(form, "id") ?? "", postRef, { votersGetAccess: formFlag(form, "votersGetAccess") });
        } catch (error) {
          return redirectWithError(PAGE, formRefusal(error, "Failed to update panel.").message);
        }
        return redirectWithSuccess(PAGE, postRef === null ? "Idea unlinked." : "Idea linked to its post.");
      }
      case "voter-access": {
        const on = formFlag(form, "votersGetAccess");
        try {
          await setVoterAccess(user.id, formOptionalText(form, "id") ?? "", on);
        } catch (error) {
          return redirectWithError(PAGE, formRefusal(error, "Failed to update panel.").message);
        }
        return redirectWithSuccess(PAGE, on ? "Voters now get the first release's access." : "Voters no longer get access of their own.");
      }
      case "delete-panel": {
        await deleteInspirationPanel(user.id, formOptionalText(form, "id") ?? "");
        return redirectWithSuccess(PAGE, "Panel deleted.");
      }
      default:
        return redirectWithError(PAGE, "Unknown action.");
    }
  } catch (error) {
    const failure =
      intent === "like" || intent === "patreon-like"
        ? "Failed to toggle like."
        : intent === "reset-likes"
          ? "Failed to reset likes."
          : intent === "delete-panel"
            ? "Failed to delete panel."
            : "Failed to update configuration.";
    return redirectWithError(PAGE, formRefusal(error, failure).message);
  }
}

export function ErrorBoundary() {
  const error = useRouteError();
  const refused = refusedRequestPage(error) ?? unavailableRoutePage(error, "Something went wrong", "Failed to fetch inspiration data.");
  if (refused) return refused;
  logInBrowser(error);
  return <ErrorPage status={500} title="Something went wrong" message="Failed to fetch inspiration data." />;
}

/** A card is being edited when the address says so, or when its edit was just refused (no-JS re-render). */
function adminCardState(panelId: string, editId: string | null, refused: RefusedForm | null) {
  const refusedHere = refused?.intent === "update-panel" && refused.id === panelId ? refused : null;
  return { editing: editId === panelId || refusedHere !== null, refused: refusedHere ? { error: refusedHere.error, values: refusedHere.values } : null };
}

export default function InspirationVote() {
  const data = useLoaderData<typeof loader>();
  const { config, panels, rights, isAdmin } = data;
  const answered = useActionData<typeof action>();
  const refused = answered && "intent" in answered ? (answered as RefusedForm) : null;
  const revalidator = useRevalidator();
  // Set when the countdown runs out in this browser, before the refetch confirms it.
  const [endedHere, setEndedHere] = useState<string | null>(null);
  const votingOpen = config.votingOpen && endedHere !== config.votingEndTime;

  return (
    <>
      <header className="inspiration-head">
        <h1 className="page-title">{config.title}</h1>
        <p className={votingOpen ? "voting-status open" : "voting-status closed"} data-testid="voting-status">
          {votingOpen ? "Voting is open" : "Voting is closed"}
        </p>
        {config.votingOpenFlag && config.votingEndTime ? (
          <Countdown
            key={config.votingEndTime}
            endTime={config.votingEndTime}
            serverNow={data.serverNow}
            onEnd={() => {
              setEndedHere(config.votingEndTime);
              revalidator.revalidate();
            }}
          />
        ) : null}
        {votingOpen && rights.reason ? (
          <p className="muted">
            {data.loggedIn ? null : (
              <>
                <Link to="/login">Log in</Link> to vote.{" "}
              </>
            )}
            Supporters on tier 2 or higher can like panels.
          </p>
        ) : null}
        {config.mode === "randomized" && votingOpen ? <p className="muted">Counts are hidden and the order is shuffled until voting ends.</p> : null}
      </header>

      {isAdmin ? <InspirationAdmin config={config} refused={refused} /> : null}

      {panels.length === 0 ? (
        <p className="muted">No inspiration panels yet.</p>
      ) : (
        <ul className="inspiration-grid" aria-label="Inspiration panels">
          {panels.map((panel, position) => (
            <InspirationPanelCard
              key={panel.id}
              panel={panel}
              position={position}
              votingOpen={votingOpen}
              canPatreonLike={rights.canPatreonLike}
              admin={isAdmin ? adminCardState(panel.id, data.editId, refused) : null}
              shipped={data.shipped.find((idea) => idea.panelId === panel.id) ?? null}
            />
          ))}
        </ul>
      )}

      {data.shipped.length > 0 ? (
        <section className="card shipped-ideas" aria-labelledby="shipped-title" data-testid="shipped-ideas">
          <h2 id="shipped-title">Ideas that shipped</h2>
          <ul>
            {data.shipped.map((idea) => (
              <li key={idea.panelId}>
                {idea.title ?? "An idea"}: <Link to={`/library/${encodeURIComponent(idea.postId)}`}>{idea.postTitle}</Link>{" "}
                <span className="muted">
                  (inspired by {idea.voters} {idea.voters === 1 ? "voter" : "voters"})
                </span>
              </li>
            ))}
          </ul>
        </section>
      ) : null}

      {data.confirmReset ? (
        <ConfirmDialog
          title="Reset likes"
          testId="reset-likes-dialog"
          action={PAGE}
          cancelTo={PAGE}
          intent="reset-likes"
          confirmLabel="Reset Likes"
          pendingLabel="Resetting..."
        >
          <p>Are you sure you want to reset all likes? This cannot be undone.</p>
        </ConfirmDialog>
      ) : null}

      {data.deleting ? (
        <ConfirmDialog
          title="Delete panel"
          testId="delete-inspiration-dialog"
          action={PAGE}
          cancelTo={PAGE}
          intent="delete-panel"
          confirmLabel="Delete"
          pendingLabel="Deleting..."
          hidden={{ id: data.deleting.id }}
        >
          <p>Are you sure you want to delete this panel?</p>
        </ConfirmDialog>
      ) : null}
    </>
  );
}
