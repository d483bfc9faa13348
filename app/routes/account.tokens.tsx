// /account/tokens: "API tokens", the account's personal tokens for its own scripts and tools. Make
// one with a label (its secret is shown once, right after it is made, with Copy), see the live
// ones with their dates, and revoke any of them. Plain forms posting here; with JavaScript they go
// through fetchers. The same model functions serve /api/account/tokens.
import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { useActionData, useFetcher, useLoaderData } from "@remix-run/react";
import { AccountArea } from "~/components/account/account-tabs";
import { CopyField } from "~/components/account/copy-field";
import { accountPanelLinks } from "~/components/account/shop-email-panel";
import { SubmitButton } from "~/components/form";
import { createApiToken, listApiTokens, revokeApiToken, type ApiTokenSummary } from "~/models/api-token.server";
import { isDomainError } from "~/models/errors";
import { requireSessionPageUser } from "~/session-guards.server";
import { formatDay, formatDayTime } from "~/utils/dates";
import { API_TOKEN_LABEL_MAX, API_TOKEN_MESSAGES, apiTokenLabelSchema, MAX_API_TOKENS_PER_ACCOUNT } from "~/utils/api-token-schemas";
import { formRefusal } from "~/utils/form-failure.server";
import { readPageForm } from "~/utils/page-form.server";
import { personalPageHeaders } from "~/utils/page-headers";
import { formInput, parseForm, text } from "~/utils/form-fields";
import { z } from "zod";

export const links: LinksFunction = () => accountPanelLinks();

export const meta: MetaFunction = () => [{ title: "API tokens · Creator Library" }];

export const headers = personalPageHeaders;

const NO_STORE = { "Cache-Control": "private, no-store" };

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireSessionPageUser(request, API_TOKEN_MESSAGES.sessionOnly);
  try {
    return data({ tokens: await listApiTokens(user), refusal: null as string | null }, { headers: NO_STORE });
  } catch (error) {
    // An unproven email: the page says why instead of a list.
    if (isDomainError(error) && error.status === 403) return data({ tokens: [] as ApiTokenSummary[], refusal: error.message }, { headers: NO_STORE });
    throw error;
  }
}

type ActionData = { intent: "create" | "revoke"; ok: boolean; message: string; field?: string; token?: { label: string; secret: string; expiresAt: string } };

/** What the form does: revoke a token (by id) or create one. */
const tokenFormSchema = z.object({ intent: z.enum(["revoke", "create"]).catch("create"), id: text });

export async function action({ request }: ActionFunctionArgs) {
  const user = await requireSessionPageUser(request, API_TOKEN_MESSAGES.sessionOnly);
  const form = await readPageForm(request);
  const { intent, id } = parseForm(form, tokenFormSchema);
  try {
    if (intent === "revoke") {
      await revokeApiToken(user, id);
      return data<ActionData>({ intent, ok: true, message: API_TOKEN_MESSAGES.revoked }, { headers: NO_STORE });
    }
    // The label as posted: the model checks it with the schema of POST /api/account/tokens.
    const made = await createApiToken(user, formInput(form, apiTokenLabelSchema));
    return data<ActionData>(
      { intent, ok: true, message: API_TOKEN_MESSAGES.created, token: { label: made.label, secret: made.token, expiresAt: made.expires_at } },
      { status: 201, headers: NO_STORE },
    );
  } catch (error) {
    const refusal = formRefusal(error, intent === "revoke" ? API_TOKEN_MESSAGES.revokeFailed : API_TOKEN_MESSAGES.createFailed);
    return data<ActionData>(
      { intent, ok: false, message: refusal.message, field: refusal.fields.label },
      { status: refusal.status, headers: { ...NO_STORE, ...refusal.headers } },
    );
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

function RevokeButton({ token }: { token: ApiTokenSummary }) {
  const revoke = useFetcher<typeof action>({ key: `revoke-token-${token.id}` });
  return (
    <revoke.Form method="post" action="/account/tokens">
      <input type="hidden" name="id" value={token.id} />
      <SubmitButton
        intent="revoke"
        className="button-secondary"
        pending={revoke.state !== "idle"}
        pendingLabel="Revoking..."
        aria-label={`Revoke ${token.label}`}
      >
        Revoke
      </SubmitButton>
    </revoke.Form>
  );
}

export default function ApiTokensPage() {
  const { tokens, refusal } = useLoaderData<typeof loader>();
  const posted = useActionData<typeof action>();
  const create = useFetcher<typeof action>({ key: "create-token" });
  // Without JavaScript the forms post to this page and the answer is the action data.
  const created = create.data ?? (posted?.intent === "create" ? posted : undefined);
  const revoked = posted?.intent === "revoke" ? posted : undefined;
  return (
    <AccountArea current="tokens">
      <section className="card account-panel" aria-labelledby="tokens-title">
        <h1 id="tokens-title">API tokens</h1>
        <p>
          A personal token lets your own scripts and tools use your library as you, for example to fetch its manifest and download what you may download. Send
          it as <code>Authorization: Bearer &lt;token&gt;</code>. Each token works for 90 days, and changing your password ends them all.
        </p>
        {refusal ? (
          <p className="form-error" role="alert">
            {refusal}
          </p>
        ) : (
          <>
            <section className="account-section" aria-labelledby="new-token-title">
              <h2 id="new-token-title" className="account-subheading">
                Make a token
              </h2>
              {created?.ok && created.token ? (
                <div className="stack" data-testid="new-token">
                  <Result data={created} />
                  <CopyField id="new-token-secret" label={`Token "${created.token.label}"`} value={created.token.secret} />
                  <p className="muted">It works until {formatDay(created.token.expiresAt)}. Keep it to yourself: it opens your library.</p>
                </div>
              ) : created && !created.field ? (
                <Result data={created} />
              ) : null}
              {/* A new form after each token made, so its label field starts empty again. */}
              <create.Form key={created?.token?.secret ?? "new"} method="post" action="/account/tokens" className="stack">
                <div className="field">
                  <label htmlFor="token-label">Label</label>
                  <input
                    id="token-label"
                    name="label"
                    type="text"
                    required
                    maxLength={API_TOKEN_LABEL_MAX}
                    autoComplete="off"
                    aria-invalid={created?.field ? true : undefined}
                    aria-describedby={created?.field ? "token-label-error" : "token-label-help"}
                  />
                  {created?.field ? (
                    <p id="token-label-error" className="form-error" role="alert">
                      {created.field}
                    </p>
                  ) : (
                    <p id="token-label-help" className="muted">
                      Where you use it, for example &quot;Laptop sync script&quot;. At most {MAX_API_TOKENS_PER_ACCOUNT} tokens at once.
                    </p>
                  )}
                </div>
                <SubmitButton intent="create" pending={create.state !== "idle"} pendingLabel="Making a token...">
                  Make token
                </SubmitButton>
              </create.Form>
            </section>

            <section className="account-section" aria-labelledby="token-list-title">
              <h2 id="token-list-title" className="account-subheading">
                Your tokens
              </h2>
              <Result data={revoked} />
              {tokens.length === 0 ? (
                <p className="muted">You have no tokens.</p>
              ) : (
                <ul className="updates-list" data-testid="token-list">
                  {tokens.map((token) => (
                    <li key={token.id} className="updates-item">
                      <div>
                        <strong>{token.label}</strong>
                        <span className="muted">
                          {" "}
                          · made {formatDay(token.created_at)} · works until {formatDay(token.expires_at)}
                          {/* Written at most once a minute per token (docs/product.md#personal-api-tokens). */}
                          {token.last_used_at ? ` · last used ${formatDayTime(token.last_used_at)}` : " · never used"}
                        </span>
                      </div>
                      <RevokeButton token={token} />
                    </li>
                  ))}
                </ul>
              )}
            </section>
          </>
        )}
      </section>
    </AccountArea>
  );
}
