import { randomBytes } from "node:crypto";
import { PassThrough, Writable } from "node:stream";
import type { ActionFunctionArgs, AppLoadContext, EntryContext, LoaderFunctionArgs } from "@remix-run/node";
import { createReadableStreamFromReadable } from "@remix-run/node";
import { isRouteErrorResponse, RemixServer } from "@remix-run/react";
import { isbot } from "isbot";
import { renderToPipeableStream } from "react-dom/server";
import { NonceContext } from "~/components/nonce";
import { RequestIdContext } from "~/components/error-page";
import { env } from "~/env.server";
import { errorFields, log } from "~/logger.server";
import { codedAnswer, compressedData } from "~/content-coding.server";
import {
  type CacheableHandle,
  documentKey,
  GUEST_CACHE_CONTROL,
  isCacheable,
  isKeepable,
  keptDocument,
  keptPageAnswer,
  type KeptPageAnswer,
  rememberKeptPage,
  SHARED_PAGE_VARY,
} from "~/document-cache.server";
import { documentCsp } from "~/security.server";
import { startBackgroundJobs } from "~/jobs.server";
import { requestIdOf } from "~/request-context.server";
import { resumeSpooledDownloads } from "~/models/download.server";
import {
  keptDataAnswer,
  keptPageUntil,
  pageBeingMade,
  readerLookupOf,
  readerPageLookup,
  startMakingPage,
  type ReaderLookup,
  type ReaderRequest,
} from "~/models/reader-pages.server";
import { keptReaderAnswers } from "~/metrics.server";

/** How long single fetch waits for a loader's promise before it rejects it (Remix reads this export). */
export const streamTimeout = 5_000;
/** React's render is abandoned a second after that, once the rejections have been streamed. */
const ABORT_DELAY = streamTimeout + 1_000;

startBackgroundJobs();
// Downloads completed during a database outage before a restart are recorded once it answers.
resumeSpooledDownloads();

export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
  loadContext: AppLoadContext,
) {
  const state = remixContext.staticHandlerContext;
  // `npm run dev` keeps no page: one rendered before an edit would be answered after it.
  if (env().NODE_ENV !== "development" && isKeepable(request, responseStatusCode, state)) {
    const handle = remixContext.routeModules[state.matches.at(-1)?.route.id ?? ""]?.handle;
    const cacheable = (kind: keyof CacheableHandle) => isCacheable(kind, request, responseStatusCode, responseHeaders, handle);
    const shared = cacheable("guestCacheable");
    // Kept at the stamp the HTTP server (server/app.ts) read before Remix ran: a guest's or a reader's page.
    const lookup = (loadContext?.readerLookup as ReaderLookup | null | undefined) ?? null;
    const kept = lookup && (lookup.accountId === null ? shared : cacheable("keptForReaders")) ? lookup : null;
    return renderKeptDocument(request, responseStatusCode, responseHeaders, remixContext, shared, kept);
  }
  return streamDocument(request, responseStatusCode, responseHeaders, remixContext);
}

/**
 * A document that is not a plain GET answer (form results, error pages): streamed, with a fresh
 * nonce that lets the inline scripts run.
 */
function streamDocument(request: Request, responseStatusCode: number, responseHeaders: Headers, remixContext: EntryContext) {
  const nonce = randomBytes(16).toString("base64");
  // Not kept, so an error page may show its own request's id (the HTTP server's X-Request-Id).
  const requestId = requestIdOf(request);
  const waitForAll = isbot(request.headers.get("user-agent") ?? "");
  return new Promise<Response>((resolve, reject) => {
    let shellRendered = false;
    const { pipe, abort } = renderToPipeableStream(
      <NonceContext.Provider value={nonce}>
        <RequestIdContext.Provider value={requestId ? { id: requestId, locationKey: null } : null}>
          <RemixServer context={remixContext} url={request.url} nonce={nonce} />
        </RequestIdContext.Provider>
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
          // Before the shell, the error reaches Remix (handleError below); after it, only here.
          if (shellRendered) log().error({ requestId: requestId ?? undefined, ...errorFields(error) }, "rendering the page failed after its start was sent");
        },
      },
    );
    setTimeout(abort, ABORT_DELAY);
  });
}

/**
 * Remix's unexpected errors (a loader, an action or a render that threw; not the Responses routes
 * throw on purpose): one JSON line with the request's id, the one its error page and its
 * X-Request-Id show. A request its client gave up on is not an error (its loaders were aborted).
 */
export function handleError(error: unknown, { request }: LoaderFunctionArgs | ActionFunctionArgs) {
  if (request.signal.aborted) return;
  // Remix wraps its own failures (a route that matched nothing, a method a route has no action for) with the cause in `error`.
  const cause = (isRouteErrorResponse(error) ? (error as { error?: unknown }).error : undefined) ?? error;
  log().error(
    { requestId: requestIdOf(request) ?? undefined, method: request.method, path: new URL(request.url).pathname, ...errorFields(cause) },
    "unexpected error",
  );
}

/**
 * A plain GET document, rendered whole once per change of its loader data and kept
 * (app/document-cache.server.ts) with its compressed bytes: its inline scripts are allowed by
 * hash, and each coding's bytes get their own ETag, so a matching If-None-Match answers 304
 * without a body. A guest page that opted in (`shared`) may also be kept by shared caches; any
 * other stays private and is revalidated. `kept`: the stamp to keep the page at for the HTTP server.
 */
async function renderKeptDocument(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
  shared: boolean,
  kept: ReaderLookup | null,
) {
  // With single fetch the loader data streams into the page (serverHandoffStream, encoded by
  // Remix before this runs): the key is made from those bytes.
  const handoff = await takeHandoff(remixContext);
  const key = documentKey(request.url, handoff ?? remixContext.staticHandlerContext.loaderData);
  const document = await keptDocument(key, () => renderWhole(request, remixContext));
  responseHeaders.set("Content-Type", "text/html; charset=utf-8");
  if (shared) responseHeaders.set("Cache-Control", GUEST_CACHE_CONTROL);
  else if (!responseHeaders.has("Cache-Control")) responseHeaders.set("Cache-Control", "private, no-cache");
  setSecurityHeaders(responseHeaders, { hashes: document.scriptHashes });
  const vary = shared ? SHARED_PAGE_VARY : "Accept-Encoding";
  // Kept before the coding's own headers: the next request may ask for another coding.
  const until = kept && keptPageUntil(kept);
  if (kept && until) rememberKeptPage(kept.key, kept.stamp, document, responseHeaders, vary, until);
  return codedAnswer(request, document, responseHeaders, vary, responseStatusCode);
}

/**
 * Reads the loader data Remix encoded for the page (whole: a kept document has no deferred data)
 * and puts the same bytes back for the render, which streams them into the page.
 */
async function takeHandoff(remixContext: EntryContext): Promise<Uint8Array[] | null> {
  const stream = remixContext.serverHandoffStream;
  if (!stream) return null;
  const chunks: Uint8Array[] = [];
  const reader = stream.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) chunks.push(read.value);
  remixContext.serverHandoffStream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  return chunks;
}

/** The whole document's bytes (React writes the doctype itself), once every part has rendered. */
function renderWhole(request: Request, remixContext: EntryContext): Promise<Buffer<ArrayBuffer>> {
  return new Promise<Buffer<ArrayBuffer>>((resolve, reject) => {
    const chunks: Buffer[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        chunks.push(chunk);
        done();
      },
      final(done) {
        resolve(Buffer.concat(chunks));
        done();
      },
    });
    const { pipe, abort } = renderToPipeableStream(<RemixServer context={remixContext} url={request.url} />, {
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
}

/** The document's own CSP; the HTTP server adds the headers every response carries (app/security.server.ts). */
function setSecurityHeaders(headers: Headers, inline: { nonce: string } | { hashes: readonly string[] }) {
  headers.set("Content-Security-Policy", documentCsp(inline, env().CALLBACK_ORIGINS));
}

/**
 * For the HTTP server (server/app.ts): the kept page of a guest or a signed-in reader for a page
 * that opts in (with the reader's account, for the log line), or the lookup Remix's answer is kept
 * at (null: not to be kept) and `made`, to call once that answer has ended. Requests at the same
 * key and stamp that find no fresh page while one is being made wait for it rather than each run
 * Remix (a page that turns each second is asked for by every connection in that second).
 */
export async function keptPage(
  request: ReaderRequest & { ifNoneMatch?: string; acceptEncoding?: string },
  page: CacheableHandle,
): Promise<{ answer: KeptPageAnswer; accountId: string | null } | { lookup: ReaderLookup | null; made: () => void }> {
  const lookup = await readerPageLookup(request, page);
  if (!lookup) return { lookup, made: () => undefined };
  let answer = keptPageAnswer(lookup.key, lookup.stamp, request);
  const making = answer ? undefined : pageBeingMade(lookup);
  if (making) answer = (await making, keptPageAnswer(lookup.key, lookup.stamp, request));
  if (!answer) return { lookup, made: request.method === "GET" ? startMakingPage(lookup) : () => undefined };
  if (lookup.accountId) keptReaderAnswers().inc();
  return { answer, accountId: lookup.accountId };
}

/**
 * Loader and action data (single fetch's `.data` answers): compressed whole as the client asks. A
 * plain 200 GET of the data of a page kept for its viewer (the HTTP server read its stamp before
 * Remix ran) is kept too, at that stamp: the next one is answered before Remix, as the page is.
 */
export async function handleDataRequest(response: Response, { request, context }: { request: Request; context: AppLoadContext }) {
  const lookup = readerLookupOf(context);
  const keepable = request.method === "GET" && response.status === 200 && response.body && !response.headers.has("Set-Cookie");
  if (!lookup || !keepable || env().NODE_ENV === "development") return compressedData(request, response);
  return keptDataAnswer(request, lookup, Buffer.from(await response.arrayBuffer()), response.headers);
}
