// S3-compatible object storage (AWS S3, MinIO, R2, ...) for sites with several app servers.
// Uploads stream through multipart uploads, so large files never sit whole in memory.
import { PassThrough, Readable } from "node:stream";
import type * as S3 from "@aws-sdk/client-s3";
import type * as S3Uploads from "@aws-sdk/lib-storage";
import { env } from "~/env.server";
import { assertSafeKey, type ByteRange, type Storage, type StoredObject } from "~/integrations/storage-interface.server";

/** One part of a multipart upload as S3 lists it. */
export type UploadedPart = { partNumber: number; size: number; etag: string; lastModified: Date };

export type S3Config = {
  endpoint?: string;
  region: string;
  bucket: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  forcePathStyle?: boolean;
  /** The bound on a connection and on silence within a request (S3_TIMEOUT_MS; default 10 s). */
  timeoutMs?: number;
};

function configFromEnv(): S3Config {
  const config = env();
  return {
    endpoint: config.S3_ENDPOINT,
    region: config.S3_REGION,
    bucket: config.S3_BUCKET ?? "",
    accessKeyId: config.S3_ACCESS_KEY_ID,
    secretAccessKey: config.S3_SECRET_ACCESS_KEY,
    forcePathStyle: config.S3_FORCE_PATH_STYLE,
    timeoutMs: config.S3_TIMEOUT_MS,
  };
}

type Sdk = { s3: typeof S3; uploads: typeof S3Uploads };

/** The AWS SDK adds about 20 MB to a process: it is loaded only where S3 storage is used. */
async function loadSdk(): Promise<Sdk> {
  const [s3, uploads] = await Promise.all([import("@aws-sdk/client-s3"), import("@aws-sdk/lib-storage")]);
  return { s3, uploads };
}

export class S3Storage implements Storage {
  private readonly client: S3.S3Client;
  private readonly bucket: string;

  static async create(config: S3Config = configFromEnv()): Promise<S3Storage> {
    return new S3Storage(await loadSdk(), config);
  }

  private constructor(
    private readonly sdk: Sdk,
    config: S3Config,
  ) {
    this.bucket = config.bucket;
    const timeoutMs = config.timeoutMs ?? 10_000;
    this.client = new sdk.s3.S3Client({
      region: config.region,
      endpoint: config.endpoint,
      forcePathStyle: config.forcePathStyle,
      credentials: config.accessKeyId && config.secretAccessKey ? { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey } : undefined,
      // Checksums only where S3 requires them: many S3-compatible servers reject the newer ones.
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
      // An endpoint that accepts connections and then says nothing (a frozen host, a dropped
      // network) fails the call (a TimeoutError, an outage) instead of holding it for ever. Silence,
      // not the whole transfer, is bounded: a large file may take minutes to stream.
      requestHandler: { connectionTimeout: timeoutMs, socketTimeout: timeoutMs },
    });
  }

  async put(key: string, body: Readable | Buffer, contentType = "application/octet-stream"): Promise<{ size: number }> {
    assertSafeKey(key);
    let size = 0;
    let source: Readable | Buffer = body;
    if (Buffer.isBuffer(body)) {
      size = body.length;
    } else {
      // Count bytes as they pass, so the stored size is known without a second request.
      source = body.pipe(
        new PassThrough({
          transform(chunk: Buffer, _encoding, callback) {
            size += chunk.length;
            callback(null, chunk);
          },
        }),
      );
      body.once("error", (error) => (source as Readable).destroy(error));
    }
    const upload = new this.sdk.uploads.Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: key, Body: source, ContentType: contentType },
      queueSize: 2,
      partSize: 8 * 1024 * 1024,
      leavePartsOnError: false,
    });
    await upload.done();
    return { size };
  }

  async stat(key: string): Promise<StoredObject | null> {
    assertSafeKey(key);
    try {
      const head = await this.client.send(new this.sdk.s3.HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return {
        size: Number(head.ContentLength ?? 0),
        etag: head.ETag ?? `"${Number(head.ContentLength ?? 0).toString(16)}"`,
        lastModified: head.LastModified ?? new Date(0),
      };
    } catch (error) {
      if (this.isNotFound(error)) return null;
      throw error;
    }
  }

  async read(key: string, range?: ByteRange): Promise<Readable> {
    assertSafeKey(key);
    const result = await this.client.send(
      new this.sdk.s3.GetObjectCommand({ Bucket: this.bucket, Key: key, Range: range ? `bytes=${range.start}-${range.end}` : undefined }),
    );
    const body: unknown = result.Body;
    if (body instanceof Readable) return body;
    if (body && typeof (body as { transformToWebStream?: unknown }).transformToWebStream === "function") {
      return Readable.fromWeb((body as { transformToWebStream: () => import("node:stream/web").ReadableStream }).transformToWebStream());
    }
    throw new Error("S3 returned no body");
  }

  async delete(key: string): Promise<void> {
    assertSafeKey(key);
    await this.client.send(new this.sdk.s3.DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  /** Every key in the bucket, page by page (backups). */
  async *keys(): AsyncGenerator<string> {
    let token: string | undefined;
    do {
      const page = await this.client.send(new this.sdk.s3.ListObjectsV2Command({ Bucket: this.bucket, ContinuationToken: token }));
      for (const object of page.Contents ?? []) if (object.Key) yield object.Key;
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  private isNotFound(error: unknown): boolean {
    if (error instanceof this.sdk.s3.NotFound) return true;
    if (error instanceof this.sdk.s3.S3ServiceException) return error.$metadata.httpStatusCode === 404 || error.name === "NoSuchKey";
    return false;
  }

  // ---- Multipart uploads the browser fills itself (resumable uploads, app/models/upload-session.server.ts)

  /** Starts a multipart upload into `key`; answers S3's UploadId. */
  async createMultipartUpload(key: string, contentType = "application/octet-stream"): Promise<string> {
    assertSafeKey(key);
    const result = await this.client.send(new this.sdk.s3.CreateMultipartUploadCommand({ Bucket: this.bucket, Key: key, ContentType: contentType }));
    if (!result.UploadId) throw new Error("S3 answered no UploadId");
    return result.UploadId;
  }

  /** A presigned URL that lets whoever holds it PUT part `partNumber` straight into the bucket, for `expiresInSeconds`. */
  async presignUploadPart(key: string, uploadId: string, partNumber: number, expiresInSeconds: number): Promise<string> {
    assertSafeKey(key);
    const { getSignedUrl } = await import("@aws-sdk/s3-request-presigner");
    return getSignedUrl(this.client, new this.sdk.s3.UploadPartCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId, PartNumber: partNumber }), {
      expiresIn: expiresInSeconds,
    });
  }

  /** The parts that have arrived (ListParts, page by page), in part order. */
  async listParts(key: string, uploadId: string): Promise<UploadedPart[]> {
    assertSafeKey(key);
    const parts: UploadedPart[] = [];
    let marker: string | undefined;
    for (;;) {
      const page = await this.client.send(new this.sdk.s3.ListPartsCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId, PartNumberMarker: marker }));
      for (const part of page.Parts ?? []) {
        if (part.PartNumber && part.ETag) {
          parts.push({ partNumber: part.PartNumber, size: Number(part.Size ?? 0), etag: part.ETag, lastModified: part.LastModified ?? new Date(0) });
        }
      }
      if (!page.IsTruncated || !page.NextPartNumberMarker) break;
      marker = page.NextPartNumberMarker;
    }
    return parts.sort((a, b) => a.partNumber - b.partNumber);
  }

  /** Assembles the listed parts into the object (CompleteMultipartUpload). */
  async completeMultipartUpload(key: string, uploadId: string, parts: readonly UploadedPart[]): Promise<void> {
    assertSafeKey(key);
    await this.client.send(
      new this.sdk.s3.CompleteMultipartUploadCommand({
        Bucket: this.bucket,
        Key: key,
        UploadId: uploadId,
        MultipartUpload: { Parts: parts.map((part) => ({ PartNumber: part.partNumber, ETag: part.etag })) },
      }),
    );
  }

  /** Drops a multipart upload and the parts it holds (AbortMultipartUpload); one S3 no longer knows is already gone. */
  async abortMultipartUpload(key: string, uploadId: string): Promise<void> {
    assertSafeKey(key);
    try {
      await this.client.send(new this.sdk.s3.AbortMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId }));
    } catch (error) {
      if (error instanceof this.sdk.s3.S3ServiceException && (error.name === "NoSuchUpload" || error.$metadata.httpStatusCode === 404)) return;
      throw error;
    }
  }

  /** Closes the client's sockets (tests, shutdown). */
  destroy() {
    this.client.destroy();
  }
}
