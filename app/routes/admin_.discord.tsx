// /admin/discord: Discord roles that follow access (docs/product.md#discord-roles). Admins map a
// Discord role to a rule, remove a mapping, and see the queue of role changes. Without
// DISCORD_BOT_TOKEN and DISCORD_GUILD_ID the page says the feature is off (mappings still show).
// Plain forms posting here (no script needed); with JavaScript the navigation shows progress.
// The same model functions serve /api/admin/discord-roles.
import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { Field, SubmitButton } from "~/components/form";
import { createRoleMapping, deleteRoleMapping, discordOverview, mappingTargets } from "~/models/discord-roles.server";
import { requireAdmin } from "~/session-guards.server";
import adminStyles from "~/styles/admin.css?url";
import { DISCORD_MESSAGES, DISCORD_RULE_WORDS, DISCORD_RULES, roleMappingSchema } from "~/utils/discord-schemas";
import { formRefusal } from "~/utils/form-failure.server";
import { readPageForm } from "~/utils/page-form.server";
import { personalPageHeaders } from "~/utils/page-headers";
import { formInput, parseForm, text } from "~/utils/form-fields";
import { z } from "zod";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: adminStyles }];

export const meta: MetaFunction = () => [{ title: "Discord roles · Admin · Creator Library" }];

export const headers = personalPageHeaders;

const NO_STORE = { "Cache-Control": "private, no-store" };

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAdmin(request);
  const [overview, { tiers, posts, ideas }] = await Promise.all([discordOverview(), mappingTargets()]);
  return data({ overview, tiers, posts, ideas }, { headers: NO_STORE });
}

type ActionData = { intent: "create" | "delete"; ok: boolean; message: string; fields: Record<string, string> };

/** What the form does: delete a rule (by id) or create one. */
const roleRuleFormSchema = z.object({ intent: z.enum(["delete", "create"]).catch("create"), id: text });

export async function action({ request }: ActionFunctionArgs) {
  const admin = await requireAdmin(request);
  const form = await readPageForm(request);
  // Removing names its mapping; any other post creates one.
  const { intent, id } = parseForm(form, roleRuleFormSchema);
  try {
    if (intent === "delete") {
      await deleteRoleMapping(admin, id);
      return data<ActionData>({ intent, ok: true, message: DISCORD_MESSAGES.removed, fields: {} }, { headers: NO_STORE });
    }
    // The mapping's fields as posted: the model checks them with the schema of POST /api/admin/discord-roles.
    await createRoleMapping(admin, formInput(form, roleMappingSchema));
    return data<ActionData>({ intent, ok: true, message: DISCORD_MESSAGES.created, fields: {} }, { status: 201, headers: NO_STORE });
  } catch (error) {
    const refusal = formRefusal(error, intent === "delete" ? DISCORD_MESSAGES.removeFailed : DISCORD_MESSAGES.createFailed);
    return data<ActionData>(
      { intent, ok: false, message: refusal.message, fields: refusal.fields },
      { status: refusal.status, headers: { ...NO_STORE, ...refusal.headers } },
    );
  }
}

function when(iso: string | null): string {
  return iso ? `${iso.slice(0, 16).replace("T", " ")} UTC` : "—";
}

function Select({ label, name, error, children }: { label: string; name: string; error?: string; children: React.ReactNode }) {
  const id = `discord-${name}`;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} name={name} defaultValue="" aria-invalid={error ? true : undefined} aria-describedby={error ? `${id}-error` : undefined}>
        {children}
      </select>
      {error ? (
        <p id={`${id}-error`} className="field-error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}

export default function AdminDiscord() {
  const { overview, tiers, posts, ideas } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const fields = result && !result.ok && result.intent === "create" ? result.fields : {};
  return (
    <div className="admin-page stack">
      <p>
        <Link to="/admin">Back to the admin area</Link>
      </p>
      <h1>Discord roles</h1>
      <p>
        Each mapped role follows access: an account with a linked Discord account gets the role while it qualifies, and loses it within a minute when it no
        longer does (a membership change, a grant, a release step, a lapse, a deleted account). Every change is in the audit log with its reason; an hourly
        check puts back what was changed by hand on Discord.
      </p>
      {overview.enabled ? (
        <p data-testid="discord-status">
          On, for Discord server {overview.guildId}. {overview.linkedAccounts.toLocaleString("en-US")} account(s) have linked Discord.
        </p>
      ) : (
        <p className="notice" role="status" data-testid="discord-status">
          {DISCORD_MESSAGES.off}
        </p>
      )}
      {result ? (
        <p role={result.ok ? "status" : "alert"} className={result.ok ? "" : "form-error"}>
          {result.message}
        </p>
      ) : null}

      <section className="card" aria-labelledby="discord-mappings">
        <h2 id="discord-mappings">Role mappings</h2>
        {overview.mappings.length === 0 ? (
          <p className="muted">No role is mapped yet.</p>
        ) : (
          <div className="table-scroll" tabIndex={0} role="region" aria-label="Role mappings">
            <table data-testid="discord-mappings">
              <thead>
                <tr>
                  <th scope="col">Role</th>
                  <th scope="col">Rule</th>
                  <th scope="col">Holders</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {overview.mappings.map((mapping) => (
                  <tr key={mapping.id} data-testid="discord-mapping">
                    <td>
                      @{mapping.roleName} <span className="muted">({mapping.roleId})</span>
                    </td>
                    <td>
                      {mapping.ruleWords}
                      {mapping.target ? `: ${mapping.target}` : ""}
                    </td>
                    <td>{overview.holders[mapping.roleId] ?? 0}</td>
                    <td>
                      <Form method="post">
                        <input type="hidden" name="id" value={mapping.id} />
                        <SubmitButton
                          intent="delete"
                          className="button-secondary"
                          pendingLabel="Removing..."
                          aria-label={`Remove the mapping of @${mapping.roleName}`}
                        >
                          Remove
                        </SubmitButton>
                      </Form>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>

      <section className="card" aria-labelledby="discord-new-mapping">
        <h2 id="discord-new-mapping">Map a role</h2>
        <p className="muted">
          The rule&apos;s target: a tier for &ldquo;Tier or higher&rdquo;, a post, a shop item code or an idea. &ldquo;Holds a grant&rdquo; takes an optional
          post.
        </p>
        <Form method="post" className="stack" noValidate>
          <Field label="Discord role id" name="role_id" inputMode="numeric" required error={fields.role_id} autoComplete="off" />
          <Field label="Role name (as on Discord)" name="role_name" required maxLength={100} error={fields.role_name} autoComplete="off" />
          <Select label="Rule" name="rule" error={fields.rule}>
            <option value="">Pick a rule</option>
            {DISCORD_RULES.map((rule) => (
              <option key={rule} value={rule}>
                {DISCORD_RULE_WORDS[rule]}
              </option>
            ))}
          </Select>
          <Select label="Tier (for “Tier or higher”)" name="tier_id" error={fields.tier_id}>
            <option value="">—</option>
            {tiers.map((tier) => (
              <option key={tier.id} value={tier.id}>
                {tier.title}
              </option>
            ))}
          </Select>
          <Select label="Post (for “Owns a post” and “Holds a grant”)" name="post_id" error={fields.post_id}>
            <option value="">—</option>
            {posts.map((post) => (
              <option key={post.id} value={post.id}>
                {post.title}
              </option>
            ))}
          </Select>
          <Field label="Shop item code (for “Bought a shop item”)" name="shop_item" error={fields.shop_item} autoComplete="off" />
          <Select label="Idea (for “Voted for an idea”)" name="idea_id" error={fields.idea_id}>
            <option value="">—</option>
            {ideas.map((idea) => (
              <option key={idea.id} value={idea.id}>
                {idea.title ?? "Untitled idea"}
              </option>
            ))}
          </Select>
          <SubmitButton intent="create" pendingLabel="Saving...">
            Save mapping
          </SubmitButton>
        </Form>
      </section>

      <section className="card" aria-labelledby="discord-queue">
        <h2 id="discord-queue">Latest role changes</h2>
        <p>
          Waiting: {overview.queue.pending.toLocaleString("en-US")} · Given up: {overview.queue.givenUp.toLocaleString("en-US")}. A change is retried, each time
          after twice the wait of the one before, and given up after 24 hours.
        </p>
        {overview.queue.recent.length === 0 ? (
          <p className="muted">No change yet.</p>
        ) : (
          <div className="table-scroll" tabIndex={0} role="region" aria-label="Latest role changes">
            <table data-testid="discord-jobs">
              <thead>
                <tr>
                  <th scope="col">Queued</th>
                  <th scope="col">Change</th>
                  <th scope="col">Reason</th>
                  <th scope="col">State</th>
                  <th scope="col">Last error</th>
                </tr>
              </thead>
              <tbody>
                {overview.queue.recent.map((job) => (
                  <tr key={job.id}>
                    <td>{when(job.createdAt)}</td>
                    <td>
                      {job.kind === "announce" ? "Announcement" : `${job.kind === "add" ? "Give" : "Take"} role ${job.roleId} (member ${job.discordUserId})`}
                    </td>
                    <td>{job.reason}</td>
                    <td>
                      {job.status.toLowerCase().replace("_", " ")}
                      {job.nextAttemptAt ? `, next ${when(job.nextAttemptAt)}` : ""}
                    </td>
                    <td>{job.lastError ?? "—"}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </div>
  );
}
