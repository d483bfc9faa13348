// Reads shared by callers that ask the same thing at about the same time (the same credentials'
// session lookup, the same reader's page stamp), without ever answering a caller from a read made
// before it arrived: a write done before a request arrived is always seen, and a reader's kept
// page is made only from reads that follow the stamp read for it
// (docs/decisions/028-reads-shared-after-arrival.md).
import { nextMoment, requestBegan } from "~/request-context.server";

/** One read: what it reads (widened by callers who join before it is sent), when it was sent, its answer. */
export type SharedRead<Ask, Answer> = { asked: Ask; sentAt: number | null; answer: Promise<Answer> };

/** How asks combine: does a read of `have` answer `want`, and the ask that answers both. */
export type AskRules<Ask> = { covers(have: Ask, want: Ask): boolean; widen(have: Ask, want: Ask): Ask };

type Reads<Ask, Answer> = { sent?: SharedRead<Ask, Answer>; next?: SharedRead<Ask, Answer> };

/**
 * Shared reads by key. A caller
 * - joins a read not yet sent, widening what it reads;
 * - shares one sent after the caller's request began (`requestBegan`) when it reads what the
 *   caller wants;
 * - otherwise waits for the next read, sent once the one in flight has answered: one read in
 *   flight per key, each answering every caller that arrived during the one before.
 * A caller whose only lack is what is read (a loader asking for more after its request's read was
 * sent) sends its own read at once rather than wait. `read` marks the moment its query goes out
 * with `markSent`; a read that ends without a query is never shared after it answers.
 */
export function sharedReads<Ask, Answer>(rules: AskRules<Ask>) {
  const byKey = new Map<string, Reads<Ask, Answer>>();

  function settle(key: string, reads: Reads<Ask, Answer>, read: SharedRead<Ask, Answer>) {
    if (reads.sent === read) reads.sent = undefined;
    if (!reads.sent && !reads.next && byKey.get(key) === reads) byKey.delete(key);
  }

  function send(key: string, reads: Reads<Ask, Answer>, want: Ask, read: (shared: SharedRead<Ask, Answer>) => Promise<Answer>) {
    const started: SharedRead<Ask, Answer> = { asked: want, sentAt: null, answer: Promise.resolve(null as Answer) };
    // Sent on the event loop's next turn: the requests whose bytes arrived in this turn join it.
    started.answer = new Promise<void>((resolve) => setImmediate(resolve)).then(() => read(started)).finally(() => settle(key, reads, started));
    reads.sent = started;
    return started;
  }

  return function readShared(key: string, want: Ask, read: (shared: SharedRead<Ask, Answer>) => Promise<Answer>): Promise<Answer> {
    const began = requestBegan();
    let reads = byKey.get(key);
    if (!reads) byKey.set(key, (reads = {}));
    const { sent, next } = reads;
    if (sent && sent.sentAt === null) {
      sent.asked = rules.widen(sent.asked, want);
      return sent.answer;
    }
    if (sent && sent.sentAt! > began) return rules.covers(sent.asked, want) ? sent.answer : send(key, reads, want, read).answer;
    if (!sent) return send(key, reads, want, read).answer;
    if (next) {
      next.asked = rules.widen(next.asked, want);
      return next.answer;
    }
    const queued: SharedRead<Ask, Answer> = { asked: want, sentAt: null, answer: Promise.resolve(null as Answer) };
    const current = reads;
    queued.answer = sent.answer
      .catch(() => null)
      .then(() => {
        current.next = undefined;
        current.sent = queued;
        return read(queued);
      })
      .finally(() => settle(key, current, queued));
    reads.next = queued;
    return queued.answer;
  };
}

/** Marks the moment a shared read's query goes out: callers who began before it may share its answer. */
export function markSent(shared: SharedRead<unknown, unknown>): void {
  shared.sentAt = nextMoment();
}

/** Asks with nothing to widen: every read answers every caller of its key. */
export const SAME_ASK: AskRules<null> = { covers: () => true, widen: () => null };
