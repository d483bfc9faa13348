import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { Link, useActionData, useLoaderData, useRouteError, useSearchParams } from "@remix-run/react";
import { ErrorPage, logInBrowser, refusedRequestPage, unavailableRoutePage } from "~/components/error-page";
import { useSavedKey } from "~/components/form";
import { ConfirmDialog } from "~/components/confirm-dialog";
import { PanelForm, type PanelFormValues } from "~/components/panel-form";
import { createPanel, deletePanel, listPanels, toApiPanel, updatePanel } from "~/models/panel.server";
import { getCurrentUser } from "~/models/session.server";
import { requireAdmin } from "~/session-guards.server";
import { redirectWithError, redirectWithSuccess } from "~/toast.server";
import { firstIssue } from "~/api.server";
import { readFormWithFiles } from "~/utils/upload.server";
import { formRefusal } from "~/utils/form-failure.server";
import { panelInputSchema } from "~/utils/panel-schemas";
import { GRID_IMAGE_SIZES, imageSrcSet } from "~/utils/responsive-images";
import homeStyles from "~/styles/home.css?url";
import { isEffectiveAdmin } from "~/utils/entitlement";
import type { CacheableHandle } from "~/document-cache.server";
import { adminUploads } from "~/request-policy.server";
import { formFile, parseForm, readForm, text } from "~/utils/form-fields";
import { z } from "zod";

// Admins upload panel images from the home page.
export function requestPolicy() {
  return adminUploads("image");
}

export const links: LinksFunction = () => [{ rel: "stylesheet", href: homeStyles }];

export const meta: MetaFunction = () => [{ title: "Home · Creator Library" }];

/**
 * Guests all see the same page: a CDN may keep it briefly (app/document-cache.server.ts). A
 * reader's unchanged page is answered before Remix too: the panels are in its stamp (026).
 */
export const handle: CacheableHandle = { guestCacheable: true, keptForReaders: true };

export async function loader({ request }: LoaderFunctionArgs) {
  const [user, panels] = await Promise.all([getCurrentUser(request), listPanels()]);
  const isAdmin = isEffectiveAdmin(user);
  const search = new URL(request.url).searchParams;
  const adminView = isAdmin && search.get("view") !== "user";
  const apiPanels = panels.map(toApiPanel);
  // Plain data (single fetch): no status or headers to set.
  return {
    panels: apiPanels,
    isAdmin,
    adminView,
    editing: adminView ? (apiPanels.find((panel) => panel._id === search.get("edit")) ?? null) : null,
    deleting: adminView ? (apiPanels.find((panel) => panel._id === search.get("delete")) ?? null) : null,
  };
}

type ActionData = { error: string; values: PanelFormValues };

/** The panel form as typed, shown again when refused: its intent, the panel edited (none: a new one) and the fields. */
const panelFormSchema = z.object({
  intent: text,
  id: text.transform((id) => id || undefined),
  title: text,
  description: text,
  link: text,
  index: text,
});

export async function action({ request }: ActionFunctionArgs) {
  const admin = await requireAdmin(request);
  let form: FormData;
  try {
    // The panel form: text fields and the optional image, with the image size bounded.
    form = await readFormWithFiles(request, { tooLargeMessage: "The image is too large (10 MB at most)." });
  } catch (error) {
    return redirectWithError("/", formRefusal(error, "Failed to update panel.").message);
  }
  const { intent, ...values } = parseForm(form, panelFormSchema);
  const { id } = values;

  if (intent === "delete") {
    if (!id) return redirectWithError("/", "Failed to delete panel.");
    try {
      await deletePanel(admin.id, id);
    } catch (error) {
      return redirectWithError("/", formRefusal(error, "Failed to delete panel.").message);
    }
    return redirectWithSuccess("/", "Panel deleted successfully.");
  }

  const parsed = readForm(form, panelInputSchema);
  if (!parsed.success) return data<ActionData>({ error: firstIssue(parsed.error), values }, { status: 400 });
  const file = formFile(form, "image");
  const image = file ? Buffer.from(await file.arrayBuffer()) : null;
  const failure = id ? "Failed to update panel." : "Failed to create panel.";
  try {
    if (id) await updatePanel(admin.id, id, parsed.data, image);
    else await createPanel(admin.id, parsed.data, image);
  } catch (error) {
    const refusal = formRefusal(error, failure);
    return data<ActionData>({ error: refusal.message, values }, { status: refusal.status });
  }
  // After saving, the form returns to empty create mode.
  return redirectWithSuccess("/", id ? "Panel updated successfully." : "Panel created successfully.");
}

export function ErrorBoundary() {
  const error = useRouteError();
  const refused = refusedRequestPage(error) ?? unavailableRoutePage(error, "Something went wrong", "Failed to fetch panels or user data.");
  if (refused) return refused;
  logInBrowser(error);
  return <ErrorPage status={500} title="Something went wrong" message="Failed to fetch panels or user data." />;
}

export default function Home() {
  const { panels, isAdmin, adminView, editing, deleting } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const [search] = useSearchParams();

  const formValues: PanelFormValues =
    actionData && "values" in actionData
      ? { ...actionData.values, imageUrl: panels.find((panel) => panel._id === actionData.values.id)?.imageUrl ?? null }
      : editing
        ? {
            id: editing._id,
            title: editing.title,
            description: editing.description ?? "",
            link: editing.link,
            index: String(editing.index),
            imageUrl: editing.imageUrl,
          }
        : { title: "", description: "", link: "", index: "", imageUrl: null };
  const savedKey = useSavedKey("save");
  const formKey = `${formValues.id ?? "new"}-${search.get("edit") ?? ""}-${savedKey}`;

  return (
    <>
      <div className="home-head">
        <h1 className="page-title">Welcome</h1>
        {isAdmin ? (
          <div className="view-toggle" role="group" aria-label="View">
            <Link to="/" className={adminView ? "button" : "button-secondary"} aria-current={adminView ? "page" : undefined}>
              View as Admin
            </Link>
            <Link to="/?view=user" className={adminView ? "button-secondary" : "button"} aria-current={adminView ? undefined : "page"}>
              View as User
            </Link>
          </div>
        ) : null}
      </div>

      {adminView ? <PanelForm key={formKey} values={formValues} error={actionData?.error ?? null} /> : null}

      {panels.length === 0 ? (
        <p className="muted">Nothing here yet.</p>
      ) : (
        <ul className="grid home-panels" aria-label="Links">
          {panels.map((panel, position) => (
            <li key={panel._id} className="home-panel-item" data-testid="home-panel">
              <a className="home-panel" href={panel.link} target="_blank" rel="noopener noreferrer">
                {panel.imageUrl ? (
                  <img
                    src={panel.imageUrl}
                    srcSet={imageSrcSet(panel.imageUrl)}
                    sizes={GRID_IMAGE_SIZES}
                    alt=""
                    width={640}
                    height={360}
                    loading={position < 3 ? "eager" : "lazy"}
                  />
                ) : (
                  // A panel without an image: a drawn tile (decorative; the title below names the link).
                  <span className="home-panel-placeholder" data-testid="home-panel-placeholder" aria-hidden="true">
                    <svg viewBox="0 0 24 24" width="48" height="48" focusable="false">
                      <path
                        d="M10 14a5 5 0 0 0 7.07 0l3-3a5 5 0 0 0-7.07-7.07l-1.5 1.5M14 10a5 5 0 0 0-7.07 0l-3 3a5 5 0 0 0 7.07 7.07l1.5-1.5"
                        fill="none"
                        stroke="currentColor"
                        strokeWidth="2"
                        strokeLinecap="round"
                        strokeLinejoin="round"
                      />
                    </svg>
                  </span>
                )}
                <span className="home-panel-text">
                  <h2>{panel.title}</h2>
                  {panel.description ? <p>{panel.description}</p> : null}
                </span>
                <span className="visually-hidden"> (opens in a new tab)</span>
              </a>
              {adminView ? (
                <div className="button-row home-panel-actions">
                  <Link to={`/?edit=${panel._id}`} className="button-secondary" aria-label={`Edit ${panel.title}`}>
                    Edit
                  </Link>
                  <Link to={`/?delete=${panel._id}`} className="button-danger" aria-label={`Delete ${panel.title}`}>
                    Delete
                  </Link>
                  <span className="muted home-panel-index">Index {panel.index}</span>
                </div>
              ) : null}
            </li>
          ))}
        </ul>
      )}

      {deleting ? (
        <ConfirmDialog
          title="Delete panel"
          testId="delete-panel-dialog"
          action="/?index"
          cancelTo="/"
          intent="delete"
          confirmLabel="Delete"
          pendingLabel="Deleting..."
          hidden={{ id: deleting._id }}
        >
          <p>Are you sure you want to delete this panel?</p>
          <p className="muted">{deleting.title}</p>
        </ConfirmDialog>
      ) : null}
    </>
  );
}
