// What a request refused as busy hears (server/admission.ts): JSON for the API, a short page for
// anything else. The page names the request's id (X-Request-Id), as every error page does
// (app/components/error-page.tsx), so a person who reports it can quote it.

/** The words of the busy password pool too (docs/messages.md). */
export const BUSY_MESSAGE = "The server is busy. Please try again in a few seconds.";
export const BUSY_RETRY_AFTER_SECONDS = 2;

/** The busy page of the request with this id (the server's own UUID; anything else is left out). */
export function busyPage(requestId: string): string {
  const id = requestId.replace(/[^0-9A-Za-z-]/g, "");
  const report = id ? `<p>If you report this, quote the request id <code data-request-id>${id}</code>.</p>` : "";
  return `<!doctype html><html lang="en"><title>Busy</title><h1>The server is busy</h1><p>${BUSY_MESSAGE}</p>${report}</html>`;
}
