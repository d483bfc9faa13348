// Downloads: who may fetch a post's file (the entitlement rule), short-lived signed addresses
// for free downloads, and the record of each completed download (user, post, version, time).
import { createHmac, randomUUID, timingSafeEqual } from "node:crypto";
import { db, queryRows, sqlTimestamp } from "~/db.server";
import { env } from "~/env.server";
import type { User } from "~/generated/prisma/client";
import type { DownloadAccess } from "~/generated/prisma/enums";
import { localSpool } from "~/integrations/local-spool.server";
import { isSafeKey } from "~/integrations/storage.server";
import { loadViewerContext, toEntitlementPost, type PostWithAccess, type ViewerContext } from "~/models/entitlement.server";
import { libraryPostAt } from "~/models/library-listing.server";
import { accessSourceOf } from "~/models/insights/download-access.server";
import { keptFileFor, keptVersionFor, type KeptVersion } from "~/models/kept-versions.server";
import { DomainError } from "~/models/errors";
import { downloadableVersion } from "~/models/post-version.server";
import { isRestricted, RESTRICTED_MESSAGE } from "~/models/restriction.server";
import { LIBRARY_MESSAGES } from "~/utils/library-schemas";
import { downloadFileName } from "~/utils/download-name";
import type { SentBytes } from "~/utils/serve-file.server";
import { isPostVisible } from "~/models/post-visibility.server";
import { downloadableFile, gateOf } from "~/models/version-files.server";
import { isEffectiveAdmin, isFreeAt, postForFile, unlockReason, type EntitlementViewer, type FileGate, type UnlockReason } from "~/utils/entitlement";
import { isDatabaseUnavailable } from "~/utils/errors";
import { errorFields, log } from "~/logger.server";

/** How long a signed free-download address stays valid. */
export const SIGNED_DOWNLOAD_TTL_MS = 10 * 60 * 1000;

type Downloader = Pick<User, "id" | "isAdmin" | "restricted" | "currentTierId" | "tosAccepted"> | null;

/**
 * A post cleared for download, with why it was unlocked (recorded with the download for the access sources of Insights).
 * `driveFileId`, `fileName`, `fileSize` and `version` are those of the version served (the
 * current one unless `?version=` named another), `versionId` its id (null for a file without a
 * version row).
 */
export type DownloadablePost = PostWithAccess & {
  driveFileId: string;
  unlockReason: UnlockReason | null;
  versionId: string | null;
  /** The version's extra file served (a variant, add-on or translation); null: its main file. */
  fileId: string | null;
  /** That file's own gate; null: the post's. */
  fileGate: FileGate;
  /** A kept version's record source (the membership it was first downloaded through). */
  keptSource?: DownloadAccess;
};

/** A version's extra file a download names, with its own gate (null: the post's). */
type ChosenFile = Awaited<ReturnType<typeof downloadableFile>>;

/**
 * The version a download serves: the post's current file, or, when `versionId` is
 * given, that visible version of the same post (hidden or another post's: 404). Who may
 * download is decided before; this only chooses the bytes and the label recorded.
 */
async function chooseVersion<T extends PostWithAccess & { unlockReason: UnlockReason | null; keptSource?: DownloadAccess }>(
  post: T,
  versionId: string | null | undefined,
  file: ChosenFile | null = null,
): Promise<T & { driveFileId: string; versionId: string | null; fileId: string | null; fileGate: FileGate }> {
  if (file) {
    if (!isSafeKey(file.storageKey)) throw new DomainError(404, LIBRARY_MESSAGES.fileMissing);
    return {
      ...post,
      driveFileId: file.storageKey,
      fileName: file.fileName,
      fileSize: file.size,
      version: file.version.label,
      versionId: file.versionId,
      fileId: file.id,
      fileGate: gateOf(file),
    };
  }
  if (versionId) {
    const version = await downloadableVersion(post.id, versionId);
    if (!isSafeKey(version.storageKey)) throw new DomainError(404, LIBRARY_MESSAGES.fileMissing);
    return {
      ...post,
      driveFileId: version.storageKey,
      fileName: version.fileName,
      fileSize: version.size,
      version: version.label,
      versionId: version.id,
      fileId: null,
      fileGate: null,
    };
  }
  if (!post.driveFileId || !isSafeKey(post.driveFileId)) throw new DomainError(404, LIBRARY_MESSAGES.fileMissing);
  return { ...post, driveFileId: post.driveFileId, versionId: post.currentVersionId, fileId: null, fileGate: null };
}

/** What a download needs about its viewer: the rule's facts and the library's stamp (one round trip). */
export const DOWNLOAD_VIEWER = { withLibraryStamp: true } as const;

/**
 * The post a viewer may download, or a refusal (DomainError): 404 unknown (or disabled, for
 * non-admins), 403 locked or terms not accepted. A locked post never reveals its file. The one
 * download check: made before an address is handed out (the library's action, the free-download
 * API; a signed address is then trusted by `getDownloadablePost`) and by `GET /api/download/{postId}`
 * before it serves a byte.
 */
export async function authorizeDownload(
  user: Downloader,
  postId: string,
  versionId?: string | null,
  fileId?: string | null,
  /** The request's viewer as `DOWNLOAD_VIEWER` asks for it, when the caller loaded it already. */
  preloaded?: ViewerContext,
): Promise<DownloadablePost> {
  const now = new Date();
  // The viewer and the library's stamp in one round trip; the post as the library holds it then.
  const context = preloaded ?? (await loadViewerContext(user, DOWNLOAD_VIEWER));
  const post = await libraryPostAt(context.libraryStamp, postId, now);
  return authorizeLoadedDownload(
    user,
    post,
    context.viewer,
    now,
    versionId,
    (post, asked, file) => (!user ? Promise.resolve(undefined) : file ? keptFileFor(user.id, post.id, file) : keptVersionFor(user.id, post.id, asked)),
    fileId,
  );
}

/**
 * The version of the post a lapsed member keeps, if any (`versionId`: the one asked for, or the
 * current one); with `fileId`, that file of it, which they downloaded themselves.
 */
export type KeptLookup = (post: PostWithAccess, versionId: string | null, fileId?: string | null) => Promise<KeptVersion | undefined>;

/**
 * The download check of `authorizeDownload` on a post and viewer already loaded (`null`: no such
 * post), at `now`: the listing of what an account may download asks it for each post, so it can
 * never list more or less than the downloads serve. `keptVersion` is asked only when the rule
 * itself refuses.
 */
export async function authorizeLoadedDownload(
  user: Downloader,
  post: PostWithAccess | null,
  viewer: EntitlementViewer | null,
  now: Date,
  versionId: string | null | undefined,
  keptVersion: KeptLookup,
  fileId?: string | null,
): Promise<DownloadablePost> {
  // A disabled or not yet published post is unknown to everyone but admins.
  if (!post || !isPostVisible(post, user, now)) throw new DomainError(404, LIBRARY_MESSAGES.postNotFound);
  // A named file is one of a visible version of this post (and of the version named, if any).
  const file = fileId ? await downloadableFile(post.id, fileId) : null;
  if (file && versionId && file.versionId !== versionId) throw new DomainError(404, LIBRARY_MESSAGES.fileMissing);
  // Who may download which file: the entitlement rule with the file's own gate, if it has one.
  const reason = unlockReason(toEntitlementPost(post), viewer, now, gateOf(file));
  // A lapsed member may still fetch a version (a file of it) they downloaded through their
  // membership, when the creator keeps downloads (docs/product.md#keep-what-you-downloaded); it is recorded as then.
  const kept =
    !reason && user && !user.restricted ? await keptVersion(post, file?.versionId ?? versionId ?? post.currentVersionId, file?.id ?? null) : undefined;
  if (!reason && !kept) throw new DomainError(403, LIBRARY_MESSAGES.locked);
  if (user && !user.tosAccepted && !isEffectiveAdmin(user)) throw new DomainError(403, LIBRARY_MESSAGES.tosRequired);
  if (kept) return chooseVersion({ ...post, unlockReason: null, keptSource: kept.source }, kept.versionId, file);
  return chooseVersion({ ...post, unlockReason: reason }, versionId, file);
}

/** Is this file (its own gate, or the post's) free at `now`, so a signed address may serve it? */
function isFileFreeAt(post: PostWithAccess, gate: FileGate, now: Date): boolean {
  return isFreeAt(postForFile(toEntitlementPost(post), gate), now);
}

/** Is the file a download serves free at `now` (a signed address), or paid (the session-checked route)? */
export function isDownloadFreeAt(post: DownloadablePost, now: Date): boolean {
  return isFileFreeAt(post, post.fileGate, now);
}

/**
 * A free post the viewer may fetch through a signed address. Paid posts never get one: such an
 * address works for anyone who has it, so only the session-checked `/api/download/{id}` serves
 * them.
 */
export async function authorizeFreeDownload(user: Downloader, postId: string, versionId?: string | null, fileId?: string | null): Promise<DownloadablePost> {
  const post = await authorizeDownload(user, postId, versionId, fileId);
  if (!isDownloadFreeAt(post, new Date())) throw new DomainError(403, LIBRARY_MESSAGES.notFree);
  return post;
}

/** A post behind a valid signed address: it must still exist, be enabled, be free and have a file (the named one's gate free too). */
export async function getDownloadablePost(postId: string, versionId?: string | null, fileId?: string | null): Promise<DownloadablePost> {
  const now = new Date();
  const post = await libraryPostAt((await loadViewerContext(null, { withLibraryStamp: true })).libraryStamp, postId, now);
  if (!post || !isPostVisible(post, null, now)) throw new DomainError(404, LIBRARY_MESSAGES.postNotFound);
  const file = fileId ? await downloadableFile(post.id, fileId) : null;
  if (file && versionId && file.versionId !== versionId) throw new DomainError(404, LIBRARY_MESSAGES.fileMissing);
  // Signed addresses are for free posts only: a post made paid after its address was handed out is refused too.
  if (!isFileFreeAt(post, gateOf(file), now)) throw new DomainError(403, LIBRARY_MESSAGES.notFree);
  return chooseVersion({ ...post, unlockReason: "free" as const }, versionId, file);
}

function secrets(): string[] {
  return env().SESSION_SECRET;
}

function signature(payload: string, secret: string): string {
  return createHmac("sha256", secret).update(`download:${payload}`).digest("base64url");
}

function signedPayload(postId: string, userId: string, expires: number): string {
  return `${postId}:${userId}:${expires}`;
}

/**
 * A short-lived address that streams the post's file (and records it for `userId`, if any);
 * with `versionId`, that version's (the signature grants the post; the version is a choice
 * among its visible versions, checked when the file is served).
 */
export function signedDownloadUrl(
  postId: string,
  userId: string | null,
  now = Date.now(),
  versionId: string | null = null,
  fileId: string | null = null,
): string {
  const expires = now + SIGNED_DOWNLOAD_TTL_MS;
  const user = userId ?? "";
  const params = new URLSearchParams({ expires: String(expires), sig: signature(signedPayload(postId, user, expires), secrets()[0]!) });
  if (user) params.set("u", user);
  if (versionId) params.set("version", versionId);
  if (fileId) params.set("file", fileId);
  return `${env().APP_URL}/download/${encodeURIComponent(postId)}?${params.toString()}`;
}

/** The user id carried by a valid, unexpired signed address ("" for a guest); null when invalid. */
export function verifySignedDownload(postId: string, search: URLSearchParams, now = Date.now()): string | null {
  const expires = Number(search.get("expires"));
  const sig = search.get("sig") ?? "";
  const user = search.get("u") ?? "";
  if (!Number.isSafeInteger(expires) || expires < now || expires > now + SIGNED_DOWNLOAD_TTL_MS + 60_000) return null;
  const given = Buffer.from(sig);
  for (const secret of secrets()) {
    const expected = Buffer.from(signature(signedPayload(postId, user, expires), secret));
    if (expected.length === given.length && timingSafeEqual(expected, given)) return user;
  }
  return null;
}

/** How long an address of the library manifest stays valid: about an hour (see `libraryFileExpiry`). */
export const LIBRARY_FILE_TTL_MS = 60 * 60 * 1000;
/** Manifest addresses expire on these steps, so a manifest made within one step is the same text. */
export const LIBRARY_FILE_EXPIRY_STEP_MS = 10 * 60 * 1000;

/** When the manifest's addresses made at `now` expire: an hour on, rounded up to the step (60 to 70 minutes). */
export function libraryFileExpiry(now = Date.now()): number {
  return Math.ceil((now + LIBRARY_FILE_TTL_MS) / LIBRARY_FILE_EXPIRY_STEP_MS) * LIBRARY_FILE_EXPIRY_STEP_MS;
}

function libraryFileSignature(postId: string, versionId: string, userId: string, expires: number, secret: string, fileId = ""): string {
  // A main file's payload is as before files had roles, so addresses handed out then stay valid.
  const payload = `library-file:${postId}:${versionId}:${userId}:${expires}${fileId ? `:${fileId}` : ""}`;
  return createHmac("sha256", secret).update(payload).digest("base64url");
}

/**
 * The address of a post's file in the account's library manifest: it works without cookies
 * until `expires`, for that account only (the account is checked again when it is used, like
 * any download). `versionId`: the version the manifest describes (null for a file without a
 * version row, the current file).
 */
export function signedLibraryFileUrl(postId: string, userId: string, versionId: string | null, expires: number, fileId: string | null = null): string {
  const params = new URLSearchParams({ u: userId });
  if (versionId) params.set("version", versionId);
  if (fileId) params.set("file", fileId);
  params.set("expires", String(expires));
  params.set("sig", libraryFileSignature(postId, versionId ?? "", userId, expires, secrets()[0]!, fileId ?? ""));
  return `${env().APP_URL}/api/library/files/${encodeURIComponent(postId)}?${params.toString()}`;
}

/** The account and version a valid, unexpired manifest address names; null when it is invalid or expired. */
export function verifyLibraryFile(
  postId: string,
  search: URLSearchParams,
  now = Date.now(),
): { userId: string; versionId: string | null; fileId: string | null } | null {
  const expires = Number(search.get("expires"));
  const userId = search.get("u") ?? "";
  const versionId = search.get("version") ?? "";
  const fileId = search.get("file") ?? "";
  const given = Buffer.from(search.get("sig") ?? "");
  if (!userId || !Number.isSafeInteger(expires) || expires < now || expires > now + LIBRARY_FILE_TTL_MS + LIBRARY_FILE_EXPIRY_STEP_MS + 60_000) return null;
  for (const secret of secrets()) {
    const expected = Buffer.from(libraryFileSignature(postId, versionId, userId, expires, secret, fileId));
    if (expected.length === given.length && timingSafeEqual(expected, given)) return { userId, versionId: versionId || null, fileId: fileId || null };
  }
  return null;
}

/** A short token of the signing secret in use: addresses signed under another secret are other addresses. */
export function signingKeyTag(): string {
  return createHmac("sha256", secrets()[0]!).update("library-file-key").digest("base64url").slice(0, 12);
}

/**
 * The post behind a manifest address, for the account it names, under the same check as every
 * download (`authorizeDownload`), made again now: a membership that ended since the manifest
 * was made closes the address too. Answers the account's id and leak-trace number with it.
 */
export async function authorizeLibraryFile(postId: string, search: URLSearchParams): Promise<{ post: DownloadablePost; user: { id: string; number: number } }> {
  const signed = verifyLibraryFile(postId, search);
  if (!signed) throw new DomainError(403, LIBRARY_MESSAGES.manifestLinkExpired);
  const user = await db.user.findUnique({
    where: { id: signed.userId },
    select: { id: true, number: true, isAdmin: true, restricted: true, currentTierId: true, tosAccepted: true },
  });
  if (!user) throw new DomainError(403, LIBRARY_MESSAGES.manifestLinkExpired);
  return { post: await authorizeDownload(user, postId, signed.versionId, signed.fileId), user };
}

/** A (user, post, version) is recorded at most once within this window. */
export const DOWNLOAD_RECORD_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * Records a completed download, once per (user, post, version) within the window: a client
 * fetching the file again and again must not fill the table or the admins' leak-trace search. Concurrent completions of one pair take turns (the database
 * function `record_download`, prisma/functions/record_download.sql: one round trip). The record is what the insights,
 * "My downloads" and the leak-trace search read: a busy database delays it (the pool's queue has
 * no time limit), never drops it.
 */
export async function recordDownload(
  userId: string,
  postId: string,
  version: string,
  now = new Date(),
  reason: UnlockReason | null = null,
  versionId: string | null = null,
  /** The source to record instead of the reason's (a kept version's). */
  source?: DownloadAccess,
  /** The version's extra file downloaded; null: its main file. */
  fileId: string | null = null,
): Promise<boolean> {
  const accessSource = source ?? (await accessSourceOf(reason, userId, postId));
  const [row] = await queryRows<{ recorded: boolean }>(
    `SELECT record_download($1, $2, $3, $4, $5, $6::timestamp(3), $7::download_access, $8, $9) AS recorded`,
    [`d${randomUUID()}`, userId, postId, version, versionId, sqlTimestamp(now), accessSource, DOWNLOAD_RECORD_WINDOW_MS, fileId],
  );
  return row?.recorded === true;
}

/**
 * Counts a guest's completed free download (post, version label, time; nothing about who) for
 * Insights. `link` is the signed address's signature: one count per address handed out, so a
 * client fetching the file again and again through it counts once.
 */
export async function recordGuestDownload(postId: string, version: string, link: string, now = new Date()): Promise<boolean> {
  const inserted = await db.$executeRaw`
    INSERT INTO guest_downloads (id, post_id, version, created_at, link)
    VALUES (${`g${randomUUID()}`}, ${postId}, ${version}, ${now}, ${link})
    ON CONFLICT (link) DO NOTHING`;
  return inserted > 0;
}

/** Terms of service acceptance belongs to the account: a user may accept only for themselves. */
export async function acceptTerms(actor: Pick<User, "id" | "restricted">, userId: string): Promise<void> {
  if (actor.id !== userId) throw new DomainError(403, LIBRARY_MESSAGES.tosFailed);
  if (isRestricted(actor)) throw new DomainError(403, RESTRICTED_MESSAGE);
  await db.user.update({ where: { id: userId }, data: { tosAccepted: true } });
}

/** A completed download whose record waits for the database (times as ISO text). */
type SpooledDownload =
  | {
      kind: "user";
      userId: string;
      postId: string;
      version: string;
      at: string;
      reason: UnlockReason | null;
      versionId: string | null;
      source?: DownloadAccess;
      fileId?: string | null;
    }
  | { kind: "guest"; postId: string; version: string; link: string; at: string };

/**
 * Downloads completed while the database was down, kept on the local disk and recorded once it
 * is back (app/integrations/local-spool.server.ts: durable, so a restart during the outage loses
 * none). Recording twice is harmless: a user's download counts once per window, a guest's once
 * per signed address.
 */
const downloadSpool = localSpool<SpooledDownload>("downloads", async (item) => {
  if (item.kind === "user")
    await recordDownload(item.userId, item.postId, item.version, new Date(item.at), item.reason, item.versionId, item.source, item.fileId ?? null);
  else await recordGuestDownload(item.postId, item.version, item.link, new Date(item.at));
});

/** Records the downloads kept from an earlier outage once the database answers (called at server start). */
export function resumeSpooledDownloads(): void {
  downloadSpool.resume();
}

/** What serving a post's file needs: its storage key, the name it is saved as, and what to do with each response's bytes. */
export type PostDownload = { key: string; fileName: string; onSent?: (sent: SentBytes) => Promise<void> };

/**
 * Whether the downloader has now been sent the whole file: one response with every byte of it
 * does it alone; otherwise the bytes of this response are added to the ranges they were sent
 * before (`download_progress`, the database function `credit_download_bytes`), and the answer is
 * whether those now cover the file.
 *
 * Why ranges and not "the response reached the last byte": a client asking for the last byte
 * alone (`Range: bytes=-1`) would count as having downloaded a file it never fetched, and a
 * member could so record a version they then keep (docs/product.md#keep-what-you-downloaded).
 * A download resumed after a break, or fetched in parts in any order, still counts once every
 * part was sent. "Sent" is handed to the response: the server cannot know what the client's
 * network stack kept, so a client that asked for every byte is taken to have them. Ranges are kept
 * per served copy (its ETag: a stamped ZIP is its own copy), so bytes of another file or of
 * another downloader's copy never add up.
 */
export async function wholeFileSent(downloader: string, sent: SentBytes, now = new Date()): Promise<boolean> {
  if (sent.first === 0 && sent.last === sent.size - 1) return true;
  const [row] = await queryRows<{ complete: boolean }>(`SELECT credit_download_bytes($1, $2, $3, $4, $5, $6::timestamp(3)) AS complete`, [
    downloader,
    sent.etag,
    sent.size,
    sent.first,
    sent.last,
    sqlTimestamp(now),
  ]);
  return row?.complete === true;
}

/**
 * A post's file as a download; a logged-in downloader gets a download record once the whole file
 * has been sent to their account (`wholeFileSent`). The response's last chunk waits for the
 * record, so a client that has the whole file (and revalidates its library) finds it. A guest's
 * download through a signed address (`guestLink`, its signature) is counted without a user, the
 * same way per address. While the database is down, a whole file's record is kept on disk and
 * written once it is back (the byte ranges of a partial response need the database, so those are
 * lost); any other failure is logged. Either way the file completes: the downloader paid for the
 * bytes, not for our bookkeeping.
 */
export function postDownload(post: DownloadablePost, userId: string | null, guestLink: string | null = null): PostDownload {
  const logFailure = (error: unknown) => log().error(errorFields(error), "Could not record a download");
  const spooled = (at: Date): SpooledDownload | null =>
    userId
      ? {
          kind: "user",
          userId,
          postId: post.id,
          version: post.version,
          at: at.toISOString(),
          reason: post.unlockReason,
          versionId: post.versionId,
          source: post.keptSource,
          fileId: post.fileId,
        }
      : guestLink
        ? { kind: "guest", postId: post.id, version: post.version, link: guestLink, at: at.toISOString() }
        : null;
  const record = (item: SpooledDownload) =>
    item.kind === "user"
      ? recordDownload(item.userId, item.postId, item.version, new Date(item.at), item.reason, item.versionId, item.source, item.fileId ?? null)
      : recordGuestDownload(item.postId, item.version, item.link, new Date(item.at));
  const downloader = userId ? `u:${userId}` : `g:${guestLink ?? ""}`;
  return {
    key: post.driveFileId,
    fileName: downloadFileName(post.title, post.version, post.fileName ?? post.driveFileId.split("/").pop() ?? ""),
    onSent:
      userId || guestLink
        ? async (sent) => {
            const item = spooled(new Date())!;
            let whole = false;
            try {
              whole = await wholeFileSent(downloader, sent);
              if (whole) await record(item);
            } catch (error) {
              // The database down: a whole file's record waits on disk and is written once it is back.
              if (whole && isDatabaseUnavailable(error)) await downloadSpool.add(item).catch(logFailure);
              else logFailure(error);
            }
          }
        : undefined,
  };
}
