import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { Links, Meta, Outlet, Scripts, ScrollRestoration, isRouteErrorResponse, useLoaderData, useRouteError, useRouteLoaderData } from "@remix-run/react";
import { NavBar } from "~/components/nav-bar";
import { useNonce } from "~/components/nonce";
import { Toaster } from "~/components/toaster";
import { ErrorPage, isUnavailable, logInBrowser, SITE_UNAVAILABLE_HINT, SITE_UNAVAILABLE_TITLE } from "~/components/error-page";
import { env } from "~/env.server";
import { getCurrentUser } from "~/models/session.server";
import { displayName } from "~/models/user.server";
import { configureToasts, getToast } from "~/toast.server";
import designSystem from "~/styles/design-system.css?url";
import stylesheet from "~/styles/app.css?url";
import { TIME_ZONE_COOKIE_SCRIPT, useBrowserDateSettings } from "~/utils/dates";
import { viewerDateSettings } from "~/utils/dates.server";
import { isEffectiveAdmin } from "~/utils/entitlement";

export const links: LinksFunction = () => [
  // The design system first: page stylesheets build on its tokens and classes.
  { rel: "stylesheet", href: designSystem },
  { rel: "stylesheet", href: stylesheet },
  { rel: "icon", href: "/favicon.svg", type: "image/svg+xml" },
];

export const meta: MetaFunction = () => [{ title: "Creator Library" }, { name: "description", content: "3D mods, downloads and news for supporters." }];

export async function loader({ request }: LoaderFunctionArgs) {
  configureToasts();
  const user = await getCurrentUser(request);
  const { toast, headers } = await getToast(request);
  // The flash cookie is answered only when the browser sent one (to clear it once shown):
  // otherwise every page would carry a Set-Cookie, and no shared cache could keep a guest page.
  const sentToastCookie = /(?:^|;\s*)toast-session=/.test(request.headers.get("Cookie") ?? "");
  const page = {
    toast: toast ?? null,
    account: user ? { name: displayName(user), isAdmin: isEffectiveAdmin(user) } : null,
    // The creator's time zone, in which the admins' release editor reads and shows times.
    creatorTimeZone: isEffectiveAdmin(user) ? env().CREATOR_TIME_ZONE : null,
    // The locale and time zone the server wrote this page's dates in; the browser writes in them too.
    dates: viewerDateSettings(request),
  };
  return sentToastCookie ? data(page, { headers }) : page;
}

export type RootLoader = typeof loader;

/**
 * Runs before first paint: applies the stored theme (default dark) so there is no flash, and
 * handles the spec's `token` query parameter (stored locally, then on to /library). For a
 * signed-in viewer it also tells the server the browser's time zone for the next request
 * (app/utils/dates.ts); a guest's pages are written in the creator's zone, and a cookie more would
 * only split the shared caches' copies of them.
 */
function bootScript(signedIn: boolean): string {
  return `(function(){try{var d=document.documentElement;var t=localStorage.getItem("theme");d.dataset.theme=t==="light"?"light":"dark";var p=new URLSearchParams(location.search);var k=p.get("token");if(k){localStorage.setItem("token",k);location.replace("/library");}${signedIn ? TIME_ZONE_COOKIE_SCRIPT : ""}}catch(e){}})();`;
}

export function Layout({ children }: { children: React.ReactNode }) {
  const nonce = useNonce();
  const data = useRouteLoaderData<RootLoader>("root");
  return (
    <html lang="en" data-theme="dark" suppressHydrationWarning>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="dark light" />
        <script nonce={nonce || undefined} suppressHydrationWarning dangerouslySetInnerHTML={{ __html: bootScript(Boolean(data?.account)) }} />
        <Meta />
        <Links />
      </head>
      <body>
        <a className="skip-link" href="#main">
          Skip to content
        </a>
        <NavBar account={data?.account ?? null} />
        <main id="main" tabIndex={-1}>
          {children}
        </main>
        <Toaster toast={data?.toast ?? null} />
        <ScrollRestoration nonce={nonce || undefined} />
        <Scripts nonce={nonce || undefined} />
      </body>
    </html>
  );
}

export default function App() {
  const data = useLoaderData<typeof loader>();
  useBrowserDateSettings(data.dates);
  return <Outlet />;
}

export function ErrorBoundary() {
  const error = useRouteError();
  if (isUnavailable(error)) return <ErrorPage status={503} title={SITE_UNAVAILABLE_TITLE} message={SITE_UNAVAILABLE_HINT} />;
  if (isRouteErrorResponse(error)) {
    return <ErrorPage status={error.status} title={error.status === 404 ? "Page not found" : error.statusText} />;
  }
  logInBrowser(error);
  return <ErrorPage status={500} title="Something went wrong" />;
}
