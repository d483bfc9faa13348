import { randomBytes } from "node:crypto";
import { PassThrough, Writable } from "node:stream";
import type { AppLoadContext, EntryContext } from "@remix-run/node";
import { createReadableStreamFromReadable } from "@remix-run/node";
import { RemixServer } from "@remix-run/react";
import { isbot } from "isbot";
import { renderToPipeableStream } from "react-dom/server";
import { NonceContext } from "~/components/nonce";
import { env } from "~/env.server";
import { GUEST_CACHE_CONTROL, isGuestCacheable, matchesEtag, sharedDocument, sharedDocumentKey } from "~/document-cache.server";
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
  const { matches } = remixContext.staticHandlerContext;
  if (isGuestCacheable(request, responseStatusCode, responseHeaders, matches, remixContext.routeModules)) {
    return renderSharedDocument(request, responseStatusCode, responseHeaders, remixContext);
  }
  return streamPersonalDocument(request, responseStatusCode, responseHeaders, remixContext);
}

/** A document for one reader: streamed, with a fresh nonce that lets the inline scripts run. */
function streamPersonalDocument(request: Request, responseStatusCode: number, responseHeaders: Headers, remixContext: EntryContext) {
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
          setSecurityHeaders(responseHeaders, { nonce });
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

/**
 * A guest document a shared cache may keep: rendered whole (these pages are small), so its
 * inline scripts can be allowed by hash and the bytes get an ETag; a matching If-None-Match
 * answers 304 without a body.
 */
async function renderSharedDocument(request: Request, responseStatusCode: number, responseHeaders: Headers, remixContext: EntryContext) {
  const key = sharedDocumentKey(request.url, remixContext.staticHandlerContext.loaderData);
  const document = await sharedDocument(key, () => renderWhole(request, remixContext));
  responseHeaders.set("Content-Type", "text/html; charset=utf-8");
  responseHeaders.set("Cache-Control", GUEST_CACHE_CONTROL);
  responseHeaders.set("Vary", "Cookie");
  responseHeaders.set("ETag", document.etag);
  setSecurityHeaders(responseHeaders, { hashes: document.scriptHashes });
  if (matchesEtag(request, document.etag)) return new Response(null, { status: 304, headers: responseHeaders });
  return new Response(document.html, { status: responseStatusCode, headers: responseHeaders });
}

/** The whole document as one string, once every suspended part has rendered. */
async function renderWhole(request: Request, remixContext: EntryContext): Promise<string> {
  const html = await new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        chunks.push(chunk);
        done();
      },
      final(done) {
        resolve(Buffer.concat(chunks).toString("utf8"));
        done();
      },
    });
    const { pipe, abort } = renderToPipeableStream(<RemixServer context={remixContext} url={request.url} abortDelay={ABORT_DELAY} />, {
      onAllReady() {
        pipe(sink);
      },
      onShellError: reject,
      onError(error: unknown) {
        reject(error);
      },
    });
    setTimeout(abort, ABORT_DELAY);
  });
  return `<!DOCTYPE html>${html}`;
}

function setSecurityHeaders(headers: Headers, inline: { nonce: string } | { hashes: readonly string[] }) {
  for (const [name, value] of Object.entries(securityHeaders({ inline, html: true, site: site() }))) headers.set(name, value);
}

export function handleDataRequest(response: Response) {
  for (const [name, value] of Object.entries(securityHeaders({ html: false, site: site() }))) {
    if (!response.headers.has(name)) response.headers.set(name, value);
  }
  return response;
}
