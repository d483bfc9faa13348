// Code search: a leaked file carries its downloader's leak-trace number; the admin finds that
// user's downloads of posts whose title matches a keyword.
import { db } from "~/db.server";
import { DomainError } from "~/models/errors";
import { ADMIN_MESSAGES, type CodeSearch } from "~/utils/admin-schemas";
import { traceNumberOf } from "~/utils/zip-eocd";

export type CodeSearchResult = {
  number: number;
  downloads: { _id: string; postId: string; postTitle: string; username: string; date: string }[];
};

const INT_MAX = 2_147_483_647;
const MAX_DOWNLOADS = 500;

/** The user's number and matching downloads, newest first; null when no user has that number. */
export async function searchDownloadsByCode({ code, keyword }: CodeSearch): Promise<CodeSearchResult | null> {
  if (!/^\d{1,10}$/.test(code) || Number(code) > INT_MAX) return null;
  const user = await db.user.findUnique({
    where: { number: Number(code) },
    select: { id: true, number: true, fullName: true, email: true, discordTag: true },
  });
  if (!user) return null;
  const downloads = await db.download.findMany({
    where: { userId: user.id, post: { title: { contains: keyword, mode: "insensitive" } } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: MAX_DOWNLOADS,
    select: { id: true, postId: true, createdAt: true, post: { select: { title: true } } },
  });
  const username = user.fullName ?? user.discordTag ?? user.email ?? "";
  return {
    number: user.number,
    downloads: downloads.map((download) => ({
      _id: download.id,
      postId: download.postId,
      postTitle: download.post.title,
      username,
      date: download.createdAt.toISOString(),
    })),
  };
}

/**
 * A leaked ZIP's leak-trace number, read from the end of the file (`tail`: its last bytes, up to
 * MAX_TAIL_BYTES; `size`: the whole file), and the same answer as a code search for that number
 * with no keyword: the user and all their downloads. Refuses (422) a file without a trace comment.
 */
export async function searchDownloadsByLeakedFile(tail: Uint8Array, size: number): Promise<{ number: number; result: CodeSearchResult | null }> {
  const number = traceNumberOf(tail, size);
  if (number === null) throw new DomainError(422, ADMIN_MESSAGES.noTraceComment);
  return { number, result: await searchDownloadsByCode({ code: String(number), keyword: "" }) };
}
