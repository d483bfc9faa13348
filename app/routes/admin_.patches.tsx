// /admin/patches: the game's patches (docs/product.md#game-patches). The admin names a patch
// ("1.113"), at once or later declares it the current one (patch day), and sees how many posts are
// confirmed on it. Effective admins only; both forms post here and work without JavaScript (the
// name's error is shown next to the field); with JavaScript they are sent by fetchers.
import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { Link, useActionData, useFetcher, useLoaderData } from "@remix-run/react";
import { addGamePatch, declareCurrentPatch, listGamePatches } from "~/models/game-patch.server";
import { isListedPostPublic, listLibraryPosts, patchDayCounts } from "~/models/library-listing.server";
import { requireAdmin } from "~/session-guards.server";
import adminStyles from "~/styles/admin.css?url";
import { formRefusal } from "~/utils/form-failure.server";
import { PATCH_MESSAGES, patchBanner, patchCreateFormSchema, patchDeclareSchema } from "~/utils/game-patch-schemas";
import { readPageForm } from "~/utils/page-form.server";
import { personalPageHeaders } from "~/utils/page-headers";
import { intentFormSchema, parseForm, readForm } from "~/utils/form-fields";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: adminStyles }];

export const meta: MetaFunction = () => [{ title: "Game patches · Admin · Creator Library" }];

export const headers = personalPageHeaders;

export async function loader({ request }: LoaderFunctionArgs) {
  const admin = await requireAdmin(request);
  const [patches, { posts }] = await Promise.all([listGamePatches(), listLibraryPosts(admin)]);
  // The banner as users see it: over the posts shown to everyone.
  const counts = patchDayCounts(posts.filter((post) => isListedPostPublic(post)));
  return data({ patches, counts }, { headers: { "Cache-Control": "private, no-store" } });
}

type ActionData = { ok: boolean; message: string; field?: "name" };

export async function action({ request }: ActionFunctionArgs) {
  const admin = await requireAdmin(request);
  const form = await readPageForm(request);
  const { intent } = parseForm(form, intentFormSchema);
  try {
    if (intent === "add") {
      const parsed = readForm(form, patchCreateFormSchema);
      if (!parsed.success) return data<ActionData>({ ok: false, message: parsed.error.issues[0]!.message, field: "name" }, { status: 400 });
      await addGamePatch(admin, parsed.data);
      return { ok: true, message: PATCH_MESSAGES.added } satisfies ActionData;
    }
    if (intent === "declare") {
      const parsed = readForm(form, patchDeclareSchema);
      if (!parsed.success) return data<ActionData>({ ok: false, message: PATCH_MESSAGES.patchNotFound }, { status: 404 });
      await declareCurrentPatch(admin, parsed.data.patchId);
      return { ok: true, message: PATCH_MESSAGES.declared } satisfies ActionData;
    }
    return data<ActionData>({ ok: false, message: PATCH_MESSAGES.failed }, { status: 400 });
  } catch (error) {
    const refusal = formRefusal(error, PATCH_MESSAGES.failed);
    const field = intent === "add" && refusal.status === 409 ? ("name" as const) : undefined;
    return data<ActionData>({ ok: false, message: refusal.message, field }, { status: refusal.status, headers: refusal.headers });
  }
}

function AddPatch({ count }: { count: number }) {
  const posted = useActionData<typeof action>();
  const fetcher = useFetcher<typeof action>({ key: "add-patch" });
  const answer = fetcher.data ?? posted;
  const fieldError = answer && !answer.ok && answer.field === "name" ? answer.message : null;
  return (
    <section className="card" aria-labelledby="add-patch-title">
      <h2 id="add-patch-title">Name a patch</h2>
      <fetcher.Form method="post" action="/admin/patches" className="stack" key={`patches-${count}`}>
        <input type="hidden" name="intent" value="add" />
        <div className="field">
          <label htmlFor="patch-name">Patch name</label>
          <input
            id="patch-name"
            name="name"
            type="text"
            required
            maxLength={40}
            placeholder="1.113"
            autoComplete="off"
            aria-invalid={fieldError ? true : undefined}
            aria-describedby={fieldError ? "patch-name-error" : undefined}
          />
          {fieldError ? (
            <p id="patch-name-error" className="field-error" role="alert">
              {fieldError}
            </p>
          ) : null}
        </div>
        <label className="checkbox">
          <input type="checkbox" name="current" /> Make it the current patch now (patch day)
        </label>
        <div>
          <button type="submit" className="button" disabled={fetcher.state !== "idle"}>
            Add patch
          </button>
        </div>
        {answer && !fieldError ? (
          <p role="status" className={answer.ok ? "form-success" : "form-error"}>
            {answer.message}
          </p>
        ) : null}
      </fetcher.Form>
    </section>
  );
}

function DeclareButton({ patchId, name }: { patchId: string; name: string }) {
  const fetcher = useFetcher<typeof action>();
  return (
    <fetcher.Form method="post" action="/admin/patches">
      <input type="hidden" name="intent" value="declare" />
      <input type="hidden" name="patchId" value={patchId} />
      <button type="submit" className="button-secondary button-small" disabled={fetcher.state !== "idle"}>
        Make {name} current
      </button>
    </fetcher.Form>
  );
}

export default function AdminPatches() {
  const { patches, counts } = useLoaderData<typeof loader>();
  const current = patches.find((patch) => patch.current);
  return (
    <div className="admin-page stack">
      <p>
        <Link to="/admin">Back to the admin area</Link>
      </p>
      <h1>Game patches</h1>
      <p>
        Name the game&apos;s patches and declare the current one. From then on every post whose current version is not marked &ldquo;works&rdquo; on it says
        &ldquo;Not yet confirmed&rdquo;. Mark versions on each post&apos;s own page.
      </p>
      {current ? (
        <p className="patch-banner" data-testid="patch-banner">
          Current patch: <strong>{current.name}</strong>
          {counts ? <>. {patchBanner(counts.confirmed, counts.total, current.name)}.</> : null}{" "}
          <Link to="/library?filter=unconfirmed">Posts not confirmed</Link>
        </p>
      ) : (
        <p className="muted">No patch is current yet.</p>
      )}
      <AddPatch count={patches.length} />
      <section className="card" aria-labelledby="patch-list-title">
        <h2 id="patch-list-title">Patches</h2>
        {patches.length === 0 ? (
          <p className="muted">No patches named yet.</p>
        ) : (
          <ol className="stack" data-testid="patch-list">
            {patches.map((patch) => (
              <li key={patch.id} data-testid="patch-row">
                <strong>{patch.name}</strong> <span className="muted">named {patch.declared_at.slice(0, 10)}</span>{" "}
                {patch.current ? (
                  <span className="badge">Current since {patch.current_since?.slice(0, 10)}</span>
                ) : (
                  <DeclareButton patchId={patch.id} name={patch.name} />
                )}
              </li>
            ))}
          </ol>
        )}
      </section>
    </div>
  );
}
