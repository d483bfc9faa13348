// Whether app/db.server.ts notes slow queries. A fresh worker's warm-up (server/worker.ts) turns the
// notes off: its first queries each open a connection while the other workers start beside it, so
// their time is the start's, not the query's (the same queries take well under a millisecond once
// warm), and a note would send an operator after SQL that is fine. Shared through globalThis: the
// Remix build and the HTTP server are bundled apart.

const shared = globalThis as unknown as { __slowQueryNotesPaused?: number };

export function slowQueryNotesOn(): boolean {
  return !shared.__slowQueryNotesPaused;
}

/** Runs `work` without slow-query notes. */
export async function withoutSlowQueryNotes<T>(work: () => Promise<T>): Promise<T> {
  shared.__slowQueryNotesPaused = (shared.__slowQueryNotesPaused ?? 0) + 1;
  try {
    return await work();
  } finally {
    shared.__slowQueryNotesPaused -= 1;
  }
}
