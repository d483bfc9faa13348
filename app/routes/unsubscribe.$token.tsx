// /unsubscribe/{token}: the digest mails' one-click unsubscribe (RFC 8058). A mail client POSTs
// here without any session (server/security.ts lets this path through its cross-site check);
// GET shows a page with the same button, so a person who follows the link decides, and a link
// scanner that only GETs changes nothing.
import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { Link, useActionData, useFetcher, useLoaderData } from "@remix-run/react";
import { accountPanelLinks } from "~/components/account/shop-email-panel";
import { SubmitButton } from "~/components/form";
import { unsubscribeByToken, unsubscribeState } from "~/models/update-notifications.server";
import { formRefusal } from "~/utils/form-failure.server";
import { personalPageHeaders } from "~/utils/page-headers";
import { UPDATE_MESSAGES } from "~/utils/update-schemas";
import { CROSS_SITE_ALLOWED } from "~/request-policy.server";

// Mail providers post the one-click unsubscribe (RFC 8058); the token in the address is its only credential.
export function requestPolicy() {
  return CROSS_SITE_ALLOWED;
}

export const links: LinksFunction = () => accountPanelLinks();

export const meta: MetaFunction = () => [{ title: "Unsubscribe · Creator Library" }, { name: "robots", content: "noindex" }];

export const headers = personalPageHeaders;

const TOKEN_PAGE_HEADERS = { "Cache-Control": "no-store", "Referrer-Policy": "no-referrer" };

export async function loader({ params }: LoaderFunctionArgs) {
  const state = await unsubscribeState(params.token ?? "");
  return data({ state }, { status: state === "unknown" ? 404 : 200, headers: TOKEN_PAGE_HEADERS });
}

type ActionData = { ok: boolean; message: string };

export async function action({ params }: ActionFunctionArgs) {
  try {
    const { message } = await unsubscribeByToken(params.token ?? "");
    return data<ActionData>({ ok: true, message }, { headers: TOKEN_PAGE_HEADERS });
  } catch (error) {
    const refusal = formRefusal(error, UPDATE_MESSAGES.unsubscribeFailed);
    return data<ActionData>({ ok: false, message: refusal.message }, { status: refusal.status, headers: TOKEN_PAGE_HEADERS });
  }
}

export default function UnsubscribePage() {
  const { state } = useLoaderData<typeof loader>();
  const posted = useActionData<typeof action>();
  const fetcher = useFetcher<typeof action>();
  const result = fetcher.data ?? posted;
  return (
    <section className="card account-panel" aria-labelledby="unsubscribe-title">
      <h1 id="unsubscribe-title">Update mails</h1>
      {result ? (
        <p role={result.ok ? "status" : "alert"} className={result.ok ? "" : "form-error"} data-testid="unsubscribe-result">
          {result.message}
        </p>
      ) : state === "unknown" ? (
        <p className="form-error">{UPDATE_MESSAGES.unknownLink}</p>
      ) : state === "unsubscribed" ? (
        <p>{UPDATE_MESSAGES.alreadyUnsubscribed}</p>
      ) : (
        <>
          <p>Stop the mails about new versions and new posts? You can switch them on again in your account.</p>
          <fetcher.Form method="post">
            <SubmitButton pending={fetcher.state !== "idle"} pendingLabel="Unsubscribing...">
              Unsubscribe
            </SubmitButton>
          </fetcher.Form>
        </>
      )}
      <p>
        <Link to="/account/notifications">Your mail choices</Link> (you may need to log in)
      </p>
    </section>
  );
}
