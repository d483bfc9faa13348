import { randomBytes } from "node:crypto";
import { PassThrough } from "node:stream";
import type { AppLoadContext, EntryContext } from "@remix-run/node";
import { createReadableStreamFromReadable } from "@remix-run/node";
import { RemixServer } from "@remix-run/react";
import { isbot } from "isbot";
import { renderToPipeableStream } from "react-dom/server";
import { NonceContext } from "~/components/nonce";
import { env } from "~/env.server";
import { securityHeaders } from "~/security.server";
import { startBackgroundJobs } from "~/jobs.server";

const ABORT_DELAY = 5_000;

function site() {
  return { appUrl: env().APP_URL, callbackOrigins: env().CALLBACK_ORIGINS };
}

startBackgroundJobs();

export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
  _loadContext: AppLoadContext,
) {
  // A fresh nonce per response lets the inline theme script run under an enforced CSP.
  const nonce = randomBytes(16).toString("base64");
  const waitForAll = isbot(request.headers.get("user-agent") ?? "");
  return new Promise<Response>((resolve, reject) => {
    let shellRendered = false;
    const { pipe, abort } = renderToPipeableStream(
      <NonceContext.Provider value={nonce}>
        <RemixServer context={remixContext} url={request.url} abortDelay={ABORT_DELAY} nonce={nonce} />
      </NonceContext.Provider>,
      {
        nonce,
        [waitForAll ? "onAllReady" : "onShellReady"]() {
          shellRendered = true;
          const body = new PassThrough();
          responseHeaders.set("Content-Type", "text/html; charset=utf-8");
          for (const [name, value] of Object.entries(securityHeaders({ nonce, html: true, site: site() }))) responseHeaders.set(name, value);
          resolve(new Response(createReadableStreamFromReadable(body), { headers: responseHeaders, status: responseStatusCode }));
          pipe(body);
        },
        onShellError(error: unknown) {
          reject(error);
        },
        onError(error: unknown) {
          responseStatusCode = 500;
          if (shellRendered) console.error(error);
        },
      },
    );
    setTimeout(abort, ABORT_DELAY);
  });
}

export function handleDataRequest(response: Response) {
  for (const [name, value] of Object.entries(securityHeaders({ html: false, site: site() }))) {
    if (!response.headers.has(name)) response.headers.set(name, value);
  }
  return response;
}
