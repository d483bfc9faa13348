// /account/export: "Export my data", the account area's page that says what the data file holds,
// with "Download my data": a plain form post to /account/data (a resource route), answered with
// the JSON file, so the browser saves it with or without JavaScript.
import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { Form } from "@remix-run/react";
import { AccountArea } from "~/components/account/account-tabs";
import { accountPanelLinks } from "~/components/account/shop-email-panel";
import { requireUser } from "~/session-guards.server";
import { personalPageHeaders } from "~/utils/page-headers";

export const links: LinksFunction = () => accountPanelLinks();

export const meta: MetaFunction = () => [{ title: "Export my data · Creator Library" }];

export const headers = personalPageHeaders;

export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request);
  return data({}, { headers: { "Cache-Control": "private, no-store" } });
}

export default function ExportMyDataPage() {
  return (
    <AccountArea current="export">
      <section className="card account-panel" aria-labelledby="export-title">
        <h1 id="export-title">Export my data</h1>
        <p>One JSON file with everything stored about your account:</p>
        <ul className="account-summary">
          <li>your account, sign-in providers, shop emails and the purchases made with them;</li>
          <li>your Patreon pledge history, unlocks, downloads and likes;</li>
          <li>your sessions and API tokens (dates and labels only), feed and mail settings, and admin changes to your account.</li>
        </ul>
        <p className="muted">No passwords, codes or secret tokens are in it. You can export up to 10 times an hour.</p>
        <Form method="post" action="/account/data" reloadDocument>
          <button type="submit" className="button">
            Download my data
          </button>
        </Form>
      </section>
    </AccountArea>
  );
}
