-- Keep what you downloaded counts only downloads that were sent: the byte ranges of a served file
-- each downloader has been sent so far, and a download is recorded once they cover the whole file
-- (app/models/download.server.ts). Before, a request for the file's last byte alone counted.

-- CreateTable
CREATE TABLE "download_progress" (
    "downloader" TEXT NOT NULL,
    "etag" TEXT NOT NULL,
    "size" BIGINT NOT NULL,
    "sent" int8multirange NOT NULL,
    "updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "download_progress_pkey" PRIMARY KEY ("downloader","etag")
);

-- Hand-written (Prisma does not model functions): adds the bytes p_first..p_last (inclusive) of
-- a file of p_size bytes to what the downloader was sent of it, and answers whether the whole
-- file has now been sent; a complete file's row is removed (the download record takes over).
-- Rows of the same downloader untouched for a week are removed on the way: a transfer that was
-- never finished starts again from nothing. One statement per call, and the row's lock makes
-- two concurrent calls for one file add up instead of overwriting each other.
CREATE FUNCTION "credit_download_bytes"(
  p_downloader TEXT, p_etag TEXT, p_size BIGINT, p_first BIGINT, p_last BIGINT, p_now TIMESTAMP(3))
RETURNS BOOLEAN
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_sent int8multirange;
BEGIN
  DELETE FROM download_progress
   WHERE downloader = p_downloader AND etag <> p_etag AND updated_at < p_now - interval '7 days';
  INSERT INTO download_progress AS d (downloader, etag, size, sent, updated_at)
  VALUES (p_downloader, p_etag, p_size, int8multirange(int8range(p_first, p_last, '[]')), p_now)
  ON CONFLICT (downloader, etag) DO UPDATE
    SET sent = CASE WHEN d.size = EXCLUDED.size AND d.updated_at >= p_now - interval '7 days'
                    THEN d.sent + EXCLUDED.sent ELSE EXCLUDED.sent END,
        size = EXCLUDED.size,
        updated_at = EXCLUDED.updated_at
  RETURNING d.sent INTO v_sent;
  IF v_sent @> int8range(0, p_size) THEN
    DELETE FROM download_progress WHERE downloader = p_downloader AND etag = p_etag;
    RETURN TRUE;
  END IF;
  RETURN FALSE;
END
$$;
