// Real ZIP archives for tests, written by Python's zipfile (an independent implementation):
// named files with given content, an optional archive comment, ZIP64 on request.
import { execFileSync } from "node:child_process";

export type ZipFileSpec = { name: string; text?: string; repeat?: number };

const SCRIPT = `
import json, sys, zipfile
spec = json.load(sys.stdin)
with zipfile.ZipFile(spec["path"], "w", compression=zipfile.ZIP_DEFLATED if spec.get("deflate") else zipfile.ZIP_STORED, allowZip64=True) as archive:
    for entry in spec["files"]:
        data = (entry.get("text", "") * entry.get("repeat", 1)).encode()
        info = zipfile.ZipInfo(entry["name"], date_time=(2024, 1, 1, 0, 0, 0))
        with archive.open(info, "w", force_zip64=spec.get("zip64", False)) as out:
            out.write(data)
    if spec.get("comment"):
        archive.comment = spec["comment"].encode()
`;

/** Writes a ZIP at `path`. With `zip64`, entries get ZIP64 headers (not the EOCD: see below). */
export function writeZip(path: string, files: ZipFileSpec[], options: { comment?: string; deflate?: boolean; zip64?: boolean } = {}): void {
  execFileSync("python3", ["-c", SCRIPT], { input: JSON.stringify({ path, files, ...options }) });
}

/** A ZIP whose end records are ZIP64 (EOCD64 record + locator before the EOCD), as large archives have. */
export function writeZip64Archive(path: string, comment = ""): void {
  execFileSync("python3", [
    "-c",
    `
import sys, zipfile
zipfile.ZIP64_LIMIT = 1
zipfile.ZIP_FILECOUNT_LIMIT = 1
with zipfile.ZipFile(sys.argv[1], "w", allowZip64=True) as archive:
    archive.writestr("a.txt", "alpha" * 10)
    archive.writestr("b/c.txt", "charlie")
    archive.comment = sys.argv[2].encode()
`,
    path,
    comment,
  ]);
}

/** Runs both `unzip -t` and `python3 -m zipfile -t`; throws with their output when either fails. */
export function testArchive(path: string): string {
  const unzip = execFileSync("unzip", ["-t", path], { encoding: "utf8" });
  const python = execFileSync("python3", ["-m", "zipfile", "-t", path], { encoding: "utf8" });
  return `${unzip}\n${python}`;
}

/** The archive comment as Python's zipfile reads it. */
export function archiveComment(path: string): string {
  return execFileSync("python3", ["-c", "import sys, zipfile; print(zipfile.ZipFile(sys.argv[1]).comment.decode(), end='')", path], { encoding: "utf8" });
}
