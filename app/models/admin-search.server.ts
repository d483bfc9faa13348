// Code search: a leaked file carries its downloader's leak-trace stamp (number and tag); the admin
// finds that user's downloads of posts whose title matches a keyword. A stamp whose tag this site
// did not write is never attributed to anyone.
import { db } from "~/db.server";
import { DomainError } from "~/models/errors";
import { ADMIN_MESSAGES, type CodeSearch } from "~/utils/admin-schemas";
import { verifyTraceTag, type StampVerdict } from "~/utils/trace-stamp.server";
import { traceStampOf, type TraceStamp } from "~/utils/zip-eocd";

/** One matching download: the API's documented fields, and the version downloaded (label, and its id when recorded). */
export type CodeSearchDownload = {
  _id: string;
  postId: string;
  postTitle: string;
  username: string;
  date: string;
  version: string;
  versionId: string | null;
};

export type CodeSearchResult = {
  number: number;
  /** `verified`: the tag is this site's for the number; `untagged`: the number alone, nothing verified. */
  stamp: Exclude<StampVerdict, "forged">;
  /** The number's account, for the admin page: its id (the user editor's link), email and name. */
  user: { id: string; email: string | null; username: string };
  downloads: CodeSearchDownload[];
};

/** The documented payload of POST /api/admin/search-by-code (docs/api.md): the page's extra fields left out. */
export function toCodeSearchPayload(result: CodeSearchResult) {
  return {
    number: result.number,
    stamp: result.stamp,
    downloads: result.downloads.map(({ _id, postId, postTitle, username, date }) => ({ _id, postId, postTitle, username, date })),
  };
}

const INT_MAX = 2_147_483_647;
const MAX_DOWNLOADS = 500;

/** A code as typed: the number, or the whole stamp `<number>-<tag>` (the tag in any case). */
function parseCode(code: string): TraceStamp | null {
  const match = /^(\d{1,10})(?:-([0-9a-z]{1,64}))?$/i.exec(code);
  if (!match || Number(match[1]) > INT_MAX) return null;
  return { number: Number(match[1]), tag: match[2] ?? null };
}

/** The number's user and matching downloads, newest first; null when no user has that number. */
async function downloadsOf(number: number, keyword: string, stamp: CodeSearchResult["stamp"]): Promise<CodeSearchResult | null> {
  const user = await db.user.findUnique({
    where: { number },
    select: { id: true, number: true, fullName: true, email: true, discordTag: true },
  });
  if (!user) return null;
  const downloads = await db.download.findMany({
    where: { userId: user.id, post: { title: { contains: keyword, mode: "insensitive" } } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: MAX_DOWNLOADS,
    select: { id: true, postId: true, createdAt: true, version: true, versionId: true, post: { select: { title: true } } },
  });
  const username = user.fullName ?? user.discordTag ?? user.email ?? "";
  return {
    number: user.number,
    stamp,
    user: { id: user.id, email: user.email, username },
    downloads: downloads.map((download) => ({
      _id: download.id,
      postId: download.postId,
      postTitle: download.post.title,
      username,
      date: download.createdAt.toISOString(),
      version: download.version,
      versionId: download.versionId,
    })),
  };
}

/**
 * The downloads of a typed code: a bare number (`untagged`: a plain lookup, nothing verified) or
 * a stamp with its tag, which must verify (`verified`); a tag that does not is refused (422) and
 * names no one. Null when no user has that number (or the code is no number at all).
 */
export async function searchDownloadsByCode({ code, keyword }: CodeSearch): Promise<CodeSearchResult | null> {
  const typed = parseCode(code);
  if (!typed) return null;
  const verdict = verifyTraceTag(typed.number, typed.tag);
  if (verdict === "forged") throw new DomainError(422, ADMIN_MESSAGES.forgedTrace);
  return downloadsOf(typed.number, keyword, verdict);
}

/**
 * A leaked ZIP's leak-trace stamp, read from the end of the file (`tail`: its last bytes, up to
 * MAX_TAIL_BYTES; `size`: the whole file), and what its tag shows. When the stamp is not forged,
 * the same answer as a code search for that number with no keyword: the user and all their
 * downloads; a forged stamp is looked up for no one (`result` null). Refuses (422) a file
 * without a trace comment.
 */
export async function searchDownloadsByLeakedFile(
  tail: Uint8Array,
  size: number,
): Promise<{ number: number; stamp: StampVerdict; result: CodeSearchResult | null }> {
  const found = traceStampOf(tail, size);
  if (found === null) throw new DomainError(422, ADMIN_MESSAGES.noTraceComment);
  const stamp = verifyTraceTag(found.number, found.tag);
  if (stamp === "forged") return { number: found.number, stamp, result: null };
  return { number: found.number, stamp, result: found.number > INT_MAX ? null : await downloadsOf(found.number, "", stamp) };
}
