// Resumable uploads of post files (docs/product.md#uploads-that-resume). An admin starts an upload
// session for a post (name, size, label, notes); its parts arrive over as many requests as the
// connection needs: with S3 storage straight into the bucket through presigned UploadPart URLs
// (S3 lists what arrived), with the local driver through PUT /api/uploads/{id}/parts/{n} into
// DATA_DIR/uploads. Completing streams the assembled bytes through storePostVersionFile and
// addPostVersion, the very functions of the one-shot upload, so the checks and the version are
// the same. Only the admin who started an upload may continue, query, complete or abort it.
import { randomBytes } from "node:crypto";
import { db } from "~/db.server";
import type { UploadSession, User } from "~/generated/prisma/client";
import {
  deleteLocalPart,
  deleteLocalParts,
  listLocalParts,
  PartCutOffError,
  PartTooLargeError,
  readLocalParts,
  writeLocalPart,
} from "~/integrations/local-upload-parts.server";
import type { UploadedPart } from "~/integrations/s3-storage.server";
import { isStorageOutage, storage, STORAGE_RETRY_AFTER_SECONDS, STORAGE_UNAVAILABLE_MESSAGE, type Storage } from "~/integrations/storage.server";
import { env } from "~/env.server";
import { errorFields, log } from "~/logger.server";
import { DomainError, isDomainError } from "~/models/errors";
import { NOT_AUTHENTICATED_MESSAGE } from "~/models/session.server";
import { addPostVersion, storePostVersionFile } from "~/models/post-version.server";
import { uploadPartSize } from "~/utils/body-limits";
import { isEffectiveAdmin } from "~/utils/entitlement";
import { LIBRARY_MESSAGES } from "~/utils/library-schemas";
import { FILE_TOO_LARGE_MESSAGE } from "~/utils/upload.server";
import type { UploadSessionInput } from "~/utils/version-schemas";

type Admin = Pick<User, "id" | "isAdmin" | "restricted">;

/** An upload with no part for this long is abandoned; the upload-cleanup job aborts it. */
export const UPLOAD_ABANDON_HOURS = 24;
/** How long a presigned part URL stays valid; a client asks the session again for fresh ones. */
export const PART_URL_SECONDS = 6 * 60 * 60;
/** The most part URLs one answer carries (the first missing parts); the rest come with the next ask. */
export const PART_URLS_PER_ANSWER = 100;

export const UPLOAD_MESSAGES = {
  notFound: "This upload does not exist or is no longer available.",
  notYours: "Only the admin who started this upload may continue it.",
  noSuchPart: "This upload has no part with that number.",
  partWrongSize: "This part has the wrong size: every part but the last is exactly the part size, and the last holds the rest.",
  partCutOff: "This part was cut off before it arrived whole, so it was not kept. Send it again.",
  partsGoToStorage: "The parts of this upload go straight to file storage, through the part URLs the upload answered.",
  incomplete: "The upload is not complete yet: some parts have not arrived. Ask the upload what arrived and send the rest.",
  completing: "This upload is already being completed. Ask the upload or the post for the result.",
  aborted: "Upload cancelled.",
} as const;

/** Storage that can hold multipart uploads (S3); the local driver keeps parts in DATA_DIR/uploads. */
type MultipartStorage = Storage & {
  createMultipartUpload(key: string, contentType?: string): Promise<string>;
  presignUploadPart(key: string, uploadId: string, partNumber: number, expiresInSeconds: number): Promise<string>;
  listParts(key: string, uploadId: string): Promise<UploadedPart[]>;
  completeMultipartUpload(key: string, uploadId: string, parts: readonly UploadedPart[]): Promise<void>;
  abortMultipartUpload(key: string, uploadId: string): Promise<void>;
};

function isMultipartStorage(store: Storage): store is MultipartStorage {
  return typeof (store as Partial<MultipartStorage>).createMultipartUpload === "function";
}

async function multipartStorage(): Promise<MultipartStorage> {
  const store = await storage();
  if (!isMultipartStorage(store)) throw new Error("The configured storage holds no multipart uploads");
  return store;
}

/** What a client learns about an upload: its parts, what arrived, and for S3 where to send the rest. */
export type UploadStatus = {
  id: string;
  postId: string;
  fileName: string;
  size: number;
  partSize: number;
  partCount: number;
  driver: "local" | "s3";
  /** Parts that arrived whole, with their sizes. */
  received: { partNumber: number; size: number }[];
  receivedBytes: number;
  /** The first missing part numbers (all of them, up to PART_URLS_PER_ANSWER). */
  missing: number[];
  /** S3: presigned PUT URLs of the missing parts listed, valid PART_URL_SECONDS. Local: the route to PUT each part to. */
  partUrls: { partNumber: number; url: string }[];
};

function partCountOf(session: Pick<UploadSession, "size" | "partSize">): number {
  return Math.ceil(Number(session.size) / session.partSize);
}

/** The size part `partNumber` must have. */
function expectedPartSize(session: Pick<UploadSession, "size" | "partSize">, partNumber: number): number {
  const count = partCountOf(session);
  return partNumber < count ? session.partSize : Number(session.size) - session.partSize * (count - 1);
}

/** The parts that arrived whole and with the size they must have (S3 ETags kept for completing). */
async function arrivedParts(session: UploadSession): Promise<(UploadedPart | { partNumber: number; size: number; lastModified: Date; etag?: undefined })[]> {
  const parts =
    session.driver === "s3" ? await (await multipartStorage()).listParts(session.storageKey, session.s3UploadId ?? "") : await listLocalParts(session.id);
  const count = partCountOf(session);
  return parts.filter((part) => part.partNumber >= 1 && part.partNumber <= count && part.size === expectedPartSize(session, part.partNumber));
}

async function statusOf(session: UploadSession): Promise<UploadStatus> {
  const received = await arrivedParts(session);
  const count = partCountOf(session);
  const have = new Set(received.map((part) => part.partNumber));
  const missing: number[] = [];
  for (let partNumber = 1; partNumber <= count && missing.length < PART_URLS_PER_ANSWER; partNumber++) if (!have.has(partNumber)) missing.push(partNumber);
  let partUrls: UploadStatus["partUrls"];
  if (session.driver === "s3") {
    const store = await multipartStorage();
    partUrls = await Promise.all(
      missing.map(async (partNumber) => ({
        partNumber,
        url: await store.presignUploadPart(session.storageKey, session.s3UploadId ?? "", partNumber, PART_URL_SECONDS),
      })),
    );
  } else {
    partUrls = missing.map((partNumber) => ({ partNumber, url: `/api/uploads/${session.id}/parts/${partNumber}` }));
  }
  return {
    id: session.id,
    postId: session.postId,
    fileName: session.fileName,
    size: Number(session.size),
    partSize: session.partSize,
    partCount: count,
    driver: session.driver === "s3" ? "s3" : "local",
    received: received.map(({ partNumber, size }) => ({ partNumber, size })),
    receivedBytes: received.reduce((sum, part) => sum + part.size, 0),
    missing,
    partUrls,
  };
}

/** Storage that fails under a session call is no fault of the request: 503 with Retry-After. */
async function storageCall<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!isDomainError(error) && isStorageOutage(error)) {
      log().error(errorFields(error), "file storage failed during a resumable upload");
      throw new DomainError(503, STORAGE_UNAVAILABLE_MESSAGE, { retryAfterSeconds: STORAGE_RETRY_AFTER_SECONDS });
    }
    throw error;
  }
}

/** Starts a resumable upload of a file for a post; answers its status (no part arrived yet). */
export async function startUpload(actor: Admin, input: UploadSessionInput): Promise<UploadStatus> {
  if (!isEffectiveAdmin(actor)) throw new DomainError(403, LIBRARY_MESSAGES.adminOnly);
  if (input.size > env().POST_FILE_MAX_BYTES) throw new DomainError(413, FILE_TOO_LARGE_MESSAGE);
  const post = await db.post.findUnique({ where: { id: input.postId }, select: { id: true } });
  if (!post) throw new DomainError(404, LIBRARY_MESSAGES.postNotFound);
  const id = randomBytes(16).toString("hex");
  const store = await storage();
  const driver = isMultipartStorage(store) ? "s3" : "local";
  // S3 assembles the parts here; completing then streams it into the version's own key.
  const storageKey = `uploads/${id}/assembled`;
  const s3UploadId = isMultipartStorage(store) ? await storageCall(() => store.createMultipartUpload(storageKey)) : null;
  const session = await db.uploadSession.create({
    data: {
      id,
      postId: post.id,
      adminId: actor.id,
      fileName: input.fileName,
      size: BigInt(input.size),
      partSize: uploadPartSize(input.size),
      label: input.label ?? null,
      notes: input.notes,
      driver,
      storageKey,
      s3UploadId,
    },
  });
  return storageCall(() => statusOf(session));
}

/**
 * The session `uploadId` if `actor` may use it: 404 for nobody's upload and for anyone who is no
 * admin (they learn nothing of it), 403 for an admin who did not start it.
 */
async function ownSession(actor: Admin | null, uploadId: string): Promise<UploadSession> {
  const session = /^[a-z0-9]{16,64}$/.test(uploadId) ? await db.uploadSession.findUnique({ where: { id: uploadId } }) : null;
  if (!session || !actor || !isEffectiveAdmin(actor)) throw new DomainError(404, UPLOAD_MESSAGES.notFound);
  if (session.adminId !== actor.id) throw new DomainError(403, UPLOAD_MESSAGES.notYours);
  return session;
}

/**
 * Why `user` may not send a part of upload `uploadId`, as the part route answers it (401 signed
 * out, then ownSession's 404 or 403), or null for the admin who started it. The edge asks it
 * before a part's body is read.
 */
export async function partRefusal(user: Admin | null, uploadId: string): Promise<DomainError | null> {
  if (!user) return new DomainError(401, NOT_AUTHENTICATED_MESSAGE);
  return ownSession(user, uploadId).then(
    () => null,
    (error: unknown) => {
      if (isDomainError(error)) return error;
      throw error;
    },
  );
}

/** What arrived so far, and where the rest goes (a resuming client asks this first). */
export async function uploadStatus(actor: Admin | null, uploadId: string): Promise<UploadStatus> {
  const session = await ownSession(actor, uploadId);
  return storageCall(() => statusOf(session));
}

/** Receives part `partNumber` of a local-driver upload from `body`; answers the upload's status. */
export async function receivePart(actor: Admin | null, uploadId: string, partNumber: number, body: AsyncIterable<Uint8Array> | null): Promise<UploadStatus> {
  const session = await ownSession(actor, uploadId);
  if (session.driver !== "local") throw new DomainError(409, UPLOAD_MESSAGES.partsGoToStorage);
  if (!Number.isInteger(partNumber) || partNumber < 1 || partNumber > partCountOf(session)) throw new DomainError(404, UPLOAD_MESSAGES.noSuchPart);
  const expected = expectedPartSize(session, partNumber);
  let size: number;
  try {
    size = await writeLocalPart(session.id, partNumber, body ?? (async function* () {})(), expected);
  } catch (error) {
    if (error instanceof PartTooLargeError) throw new DomainError(400, UPLOAD_MESSAGES.partWrongSize);
    if (error instanceof PartCutOffError) throw new DomainError(400, UPLOAD_MESSAGES.partCutOff);
    if (isStorageOutage(error)) {
      log().error(errorFields(error), "file storage failed while a part was stored");
      throw new DomainError(503, STORAGE_UNAVAILABLE_MESSAGE, { retryAfterSeconds: STORAGE_RETRY_AFTER_SECONDS });
    }
    throw error;
  }
  if (size !== expected) {
    await deleteLocalPart(session.id, partNumber);
    throw new DomainError(400, UPLOAD_MESSAGES.partWrongSize);
  }
  await db.uploadSession.update({ where: { id: session.id }, data: { lastActivity: new Date() } });
  return storageCall(() => statusOf(session));
}

/** Drops an upload's parts wherever they are, then its row. */
async function discard(session: UploadSession): Promise<void> {
  if (session.driver === "s3") {
    const store = await multipartStorage();
    await store.abortMultipartUpload(session.storageKey, session.s3UploadId ?? "");
    await store.delete(session.storageKey);
  } else {
    await deleteLocalParts(session.id);
  }
  await db.uploadSession.deleteMany({ where: { id: session.id } });
}

/**
 * Completes an upload whose parts have all arrived: the assembled bytes stream through the
 * one-shot upload's storePostVersionFile (hashes, ZIP checks) and addPostVersion (the version, the
 * post, the audit). A file those refuse is gone with its parts; a storage outage keeps the parts
 * for another try.
 */
export async function completeUpload(actor: Admin | null, uploadId: string) {
  const session = await ownSession(actor, uploadId);
  const admin = actor as Admin;
  // One completion at a time (a double click, a retry racing the first): the claim is one row
  // update, so the second is refused instead of making a second version. A claim older than the
  // lease is taken to be a crashed server's.
  const claimed = await db.uploadSession.updateMany({
    where: { id: session.id, OR: [{ completingSince: null }, { completingSince: { lt: new Date(Date.now() - COMPLETION_LEASE_MS) } }] },
    data: { completingSince: new Date() },
  });
  if (claimed.count === 0) throw new DomainError(409, UPLOAD_MESSAGES.completing);
  try {
    return await assemble(session, admin);
  } finally {
    // Still here (not completed, not refused for good): another "complete" may try again.
    await db.uploadSession.updateMany({ where: { id: session.id }, data: { completingSince: null } });
  }
}

/** How long a claimed completion keeps others out: the assembly of the largest file, with room. */
const COMPLETION_LEASE_MS = 60 * 60 * 1000;

async function assemble(session: UploadSession, admin: Admin) {
  return storageCall(async () => {
    const parts = await arrivedParts(session);
    const count = partCountOf(session);
    if (parts.length !== count) throw new DomainError(409, UPLOAD_MESSAGES.incomplete);
    const fields = { label: session.label ?? "", notes: session.notes };
    let data: AsyncIterable<Uint8Array>;
    if (session.driver === "s3") {
      const store = await multipartStorage();
      await store.completeMultipartUpload(session.storageKey, session.s3UploadId ?? "", parts as UploadedPart[]);
      // S3 has now made the object; no multipart upload is left to abort.
      await db.uploadSession.update({ where: { id: session.id }, data: { s3UploadId: null, lastActivity: new Date() } });
      session.s3UploadId = null;
      data = await store.read(session.storageKey);
    } else {
      data = readLocalParts(session.id, count);
    }
    try {
      const stored = await storePostVersionFile(session.postId, { fileName: session.fileName, contentType: "application/octet-stream", data, fields });
      const result = await addPostVersion(admin, stored);
      await discardQuietly(session);
      return result;
    } catch (error) {
      // The file itself was refused (a corrupt ZIP, the post gone): the same bytes would be again.
      if (isDomainError(error) && error.status < 500) await discardQuietly(session);
      throw error;
    }
  });
}

async function discardQuietly(session: UploadSession): Promise<void> {
  await discard(session).catch((error: unknown) => log().error({ ...errorFields(error), uploadId: session.id }, "could not remove an upload's parts"));
}

/** Cancels an upload: its parts are dropped (S3: AbortMultipartUpload) and it is forgotten. */
export async function abortUpload(actor: Admin | null, uploadId: string): Promise<void> {
  const session = await ownSession(actor, uploadId);
  await storageCall(() => discard(session));
}

/**
 * Aborts uploads abandoned for UPLOAD_ABANDON_HOURS (no part arrived): S3 multipart uploads are
 * aborted, local parts deleted. The parts' own times count (S3 parts reach the bucket without us). Answers how many were cleaned up.
 */
export async function cleanUpAbandonedUploads(now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - UPLOAD_ABANDON_HOURS * 60 * 60 * 1000);
  // One being completed is left alone (its assembly may outlast the parts' times).
  const stale = await db.uploadSession.findMany({
    where: { lastActivity: { lt: cutoff }, OR: [{ completingSince: null }, { completingSince: { lt: cutoff } }] },
    take: 500,
  });
  let cleaned = 0;
  for (const session of stale) {
    try {
      const parts = session.driver === "local" || session.s3UploadId ? await arrivedParts(session) : [];
      const latest = parts.reduce((last, part) => Math.max(last, part.lastModified.getTime()), 0);
      if (latest >= cutoff.getTime()) {
        await db.uploadSession.update({ where: { id: session.id }, data: { lastActivity: new Date(latest) } });
        continue;
      }
      await discard(session);
      cleaned++;
    } catch (error) {
      log().error({ ...errorFields(error), uploadId: session.id }, "could not clean up an abandoned upload");
    }
  }
  return cleaned;
}
