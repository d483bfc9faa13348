// A copy of this project as a newcomer has it after `git clone` and `npm install`, in another
// folder: the files git knows (tracked, and new ones it does not ignore) as they are on disk,
// plus the installed packages and the generated Prisma client as hard links (npm install's
// result, without its minutes). No build and no data: the first `npm start` there makes both.
// Used by the first-run test and the start benchmark.
import { spawnSync } from "node:child_process";
import { chownSync, copyFileSync, existsSync, lstatSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import path from "node:path";
import { projectRoot } from "./app-server.ts";

/** Hard-links a folder tree (`cp -al`): instant, and the copy cannot change the original's files by accident of permissions alone. */
function linkTree(from: string, to: string): void {
  const result = spawnSync("cp", ["-al", from, to], { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`cp -al ${from} failed: ${result.stderr}`);
}

/** Copies the project into `target` (created if missing); with `owner`, the copied sources belong to that OS user. */
export function copyProject(target: string, owner?: { uid: number; gid: number }): void {
  const listed = spawnSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: projectRoot, encoding: "utf8" });
  if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.stderr}`);
  mkdirSync(target, { recursive: true });
  for (const file of listed.stdout.split("\0").filter(Boolean)) {
    const from = path.join(projectRoot, file);
    // A file deleted in the working tree but still tracked is not part of what runs.
    if (!existsSync(from) || !lstatSync(from).isFile()) continue;
    mkdirSync(path.dirname(path.join(target, file)), { recursive: true });
    copyFileSync(from, path.join(target, file));
  }
  if (owner) chownTree(target, owner);
  linkTree(path.join(projectRoot, "node_modules"), path.join(target, "node_modules"));
  // Vite's caches and its bundled config (left by this checkout's builds and dev server) are not
  // what npm install leaves; owned by this checkout's user, they would stop another user's build.
  for (const cache of [".vite", ".vite-temp"]) rmSync(path.join(target, "node_modules", cache), { recursive: true, force: true });
  linkTree(path.join(projectRoot, "app/generated"), path.join(target, "app/generated"));
}

function chownTree(folder: string, { uid, gid }: { uid: number; gid: number }): void {
  chownSync(folder, uid, gid);
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const child = path.join(folder, entry.name);
    if (entry.isDirectory()) chownTree(child, { uid, gid });
    else chownSync(child, uid, gid);
  }
}
