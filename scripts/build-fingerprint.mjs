// The fingerprint of what a build is made from: `npm run build` writes it beside the build, and
// `npm start` (through ensureAppBuilt) rebuilds only when the sources no longer match it.
// Content, not modification times, so a fresh clone of the same commit counts as built.
import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import path from "node:path";

/** Folders whose every file goes into the build (the generated Prisma client lives in app/). */
const SOURCE_FOLDERS = ["app", "server", "patches"];
/** Single files that shape the build or the packages it bundles. */
const SOURCE_FILES = [
  "vite.config.ts",
  "tsconfig.json",
  "package.json",
  "package-lock.json",
  "scripts/build-server.mjs",
  "scripts/build-fingerprint.mjs",
  "scripts/precompress.mjs",
];

/** The file, inside a build folder, that holds the fingerprint of the sources it was built from. */
export const FINGERPRINT_FILE = "source-fingerprint";

function filesUnder(root, folder) {
  const found = [];
  const walk = (relative) => {
    for (const entry of readdirSync(path.join(root, relative), { withFileTypes: true })) {
      if (entry.name.startsWith(".")) continue;
      const child = path.join(relative, entry.name);
      if (entry.isDirectory()) walk(child);
      else if (entry.isFile()) found.push(child);
    }
  };
  if (existsSync(path.join(root, folder))) walk(folder);
  return found;
}

/** A SHA-256 over the path and content of every source file of the build, in a stable order. */
export function sourceFingerprint(root) {
  const files = [...SOURCE_FOLDERS.flatMap((folder) => filesUnder(root, folder)), ...SOURCE_FILES.filter((file) => existsSync(path.join(root, file)))];
  const hash = createHash("sha256");
  for (const file of files.sort()) {
    hash.update(`${file.split(path.sep).join("/")}\0${statSync(path.join(root, file)).size}\0`);
    hash.update(readFileSync(path.join(root, file)));
  }
  return hash.digest("hex");
}

/** The fingerprint a build folder was made from, or null when it has none. */
export function builtFingerprint(buildDir) {
  try {
    return readFileSync(path.join(buildDir, FINGERPRINT_FILE), "utf8").trim();
  } catch {
    return null;
  }
}
