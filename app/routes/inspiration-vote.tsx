import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data, redirect } from "@remix-run/node";
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
import { inspirationConfigSchema, inspirationPanelSchema, likeRequestSchema } from "~/utils/inspiration-schemas";
import inspirationStyles from "~/styles/inspiration.css?url";
import { isEffectiveAdmin } from "~/utils/entitlement";
import type { CacheableHandle } from "~/document-cache.server";
import { checkbox, flag, formFile, formInput, parseForm, readForm, text } from "~/utils/form-fields";
import { z } from "zod";
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
  return {
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
  };
}

/** A refused admin form: its message and what was typed, so the form shows both (also without JavaScript). */
export type RefusedForm = { intent: "update-config" | "create-panel" | "update-panel"; id?: string; error: string; values: Record<string, string> };

/** What the page's forms share: the intent, the idea they are about, and how to answer. */
const voteFormSchema = z.object({
  intent: z.string().optional(),
  id: z.string().optional(),
  panelId: text,
  respond: flag("json"),
  // Linking an idea to its post: the post's id or title, and whether its voters get access.
  post: text.transform((post) => post.trim().slice(0, 300)),
  votersGetAccess: checkbox,
});

/** The vote's settings form, then the schema of the /api/inspiration routes. */
const configFormSchema = inspirationConfigSchema.extend({
  // The hidden "false" comes first; a ticked box adds "true" after it.
  votingOpen: z.array(z.string()).transform((values) => values.includes("true")),
  // The form's time is UTC.
  votingEndTime: z
    .string()
    .optional()
    .transform((time) => (time ? `${time}Z` : null))
    .pipe(inspirationConfigSchema.shape.votingEndTime),
});

/** The settings as typed, shown again when refused. */
const configTypedSchema = z.object({
  title: text,
  mode: text,
  votingEndTime: text,
  votingOpen: z.array(z.string()).transform((values) => String(values.includes("true"))),
});

/** An idea's fields as typed, shown again when refused. */
const panelTypedSchema = z.object({ imageUrl: text, title: text, status: text });

function refuse(refused: RefusedForm) {
  // The form shows the message inline: data only, so it is not toasted as well.
  return data(refused, { status: 400 });
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
  const { intent, id, panelId, respond, post, votersGetAccess } = parseForm(form, voteFormSchema);
  try {
    if (intent === "like" || intent === "patreon-like") {
      try {
        // The like wanted, as POST /api/inspiration/panels/{id}/like takes it; none: the like toggles.
        const { like } = parseForm(form, likeRequestSchema);
        await setLike(user, panelId, intent === "like" ? "LIKE" : "PATREON", like);
      } catch (error) {
        // With JavaScript the like button answers in place (no navigation, no scroll jump).
        if (error instanceof DomainError && respond) return data({ error: error.message }, { status: error.status, headers: error.headers });
        throw error;
      }
      return respond ? { ok: true } : redirect(PAGE);
    }
    // Everything below changes the vote: admins only, checked here on the server.
    if (!isEffectiveAdmin(user)) return redirectWithError(PAGE, "You need to be logged in as an admin to perform this action.");
    switch (intent) {
      case "update-config": {
        const parsed = readForm(form, configFormSchema);
        if (!parsed.success) return refuse({ intent, error: firstIssue(parsed.error), values: parseForm(form, configTypedSchema) });
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
        // Answered in place (not redirected) so the form knows it was not saved and keeps what was typed.
        const refusedHere = (error: string) =>
          refuse({ intent, id: intent === "update-panel" ? id : undefined, error, values: parseForm(form, panelTypedSchema) });
        // The idea as posted, in the schema of the /api/inspiration routes; an uploaded image replaces the URL typed.
        const input = formInput(form, inspirationPanelSchema);
        const file = formFile(form, "image");
        if (file) {
          try {
            input.imageUrl = await storeInspirationImage(Buffer.from(await file.arrayBuffer()));
          } catch (error) {
            return refusedHere(formRefusal(error, "Failed to upload the image.").message);
          }
        }
        const parsed = inspirationPanelSchema.safeParse(input);
        const failure = intent === "create-panel" ? "Failed to create panel." : "Failed to update panel.";
        if (!parsed.success) return refusedHere(firstIssue(parsed.error));
        try {
          if (intent === "create-panel") await createInspirationPanel(user.id, parsed.data);
          else await updateInspirationPanel(user.id, id ?? "", parsed.data);
        } catch (error) {
          return redirectWithError(PAGE, formRefusal(error, failure).message);
        }
        return redirectWithSuccess(PAGE, intent === "create-panel" ? "Panel created." : "Panel updated.");
      }
      case "link-post":
      case "unlink-post": {
        const postRef = intent === "link-post" ? post : null;
        if (postRef === "") return redirectWithError(PAGE, "Enter the post's ID or title.");
        try {
          await linkIdeaToPost(user.id, id ?? "", postRef, { votersGetAccess });
        } catch (error) {
          return redirectWithError(PAGE, formRefusal(error, "Failed to update panel.").message);
        }
        return redirectWithSuccess(PAGE, postRef === null ? "Idea unlinked." : "Idea linked to its post.");
      }
      case "voter-access": {
        const on = votersGetAccess;
        try {
          await setVoterAccess(user.id, id ?? "", on);
        } catch (error) {
          return redirectWithError(PAGE, formRefusal(error, "Failed to update panel.").message);
        }
        return redirectWithSuccess(PAGE, on ? "Voters now get the first release's access." : "Voters no longer get access of their own.");
      }
      case "delete-panel": {
        await deleteInspirationPanel(user.id, id ?? "");
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
