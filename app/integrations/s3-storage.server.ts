// S3-compatible object storage. Implemented in the library issue (AWS SDK v3).
import type { Readable } from "node:stream";
import type { ByteRange, Storage, StoredObject } from "~/integrations/storage.server";

export class S3Storage implements Storage {
  put(_key: string, _body: Readable | Buffer): Promise<{ size: number }> {
    throw new Error("S3 storage is not available yet: set STORAGE_DRIVER=local");
  }
  stat(_key: string): Promise<StoredObject | null> {
    throw new Error("S3 storage is not available yet: set STORAGE_DRIVER=local");
  }
  read(_key: string, _range?: ByteRange): Promise<Readable> {
    throw new Error("S3 storage is not available yet: set STORAGE_DRIVER=local");
  }
  delete(_key: string): Promise<void> {
    throw new Error("S3 storage is not available yet: set STORAGE_DRIVER=local");
  }
}
