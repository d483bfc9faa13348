// Messages between the cluster's primary (server/index.ts) and its workers (server/worker.ts).

/** A worker answered a change: every worker forgets its kept guest pages (app/document-cache.server.ts). */
export const FORGET_SHARED_PAGES = "forget-shared-pages";
