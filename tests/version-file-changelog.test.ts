// The ZIP changelog per file (docs/product.md#files-of-a-version): on a post's page and in its API
// answer, each added file of a version (a variant, an add-on) is compared with the file of the same
// role and label in the version before, from real ZIPs read on upload; a file the version before
// did not have is "new"; the main file's changelog is as before.
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { beforeAll, describe, expect, it } from "vitest";
import { VersionHistoryList } from "~/components/version-history";
import type { VersionView } from "~/models/post-version-history.server";
import * as postApiRoute from "~/routes/api.library.posts.$id";
import { callRoute, createTestUser, readJsonBody, sessionCookie } from "./helpers";
import { createPost, createTiers, TIER_2 } from "./library-fixtures";
import type { ZipFileSpec } from "./zip-files";
import { addVersionFileVia, addZipVersion, zipBytes } from "./zip-versions";

const MAIN_V1: ZipFileSpec[] = [{ name: "Mods/main.package", text: "main one" }];
const MAIN_V2: ZipFileSpec[] = [{ name: "Mods/main.package", text: "main two, longer" }];
const ALPHA_V1: ZipFileSpec[] = [
  { name: "Alpha/hair.package", text: "alpha hair" },
  { name: "Alpha/brows.package", text: "alpha brows" },
];
const ALPHA_V2: ZipFileSpec[] = [
  { name: "Alpha/hair.package", text: "alpha hair, redone" },
  { name: "Alpha/lashes.package", text: "alpha lashes" },
];
const MAXIS_V2: ZipFileSpec[] = [{ name: "Maxis/hair.package", text: "maxis hair" }];

type Answer = { versions: VersionView[] };

let postId: string;
let supporterCookie: string;
const ids = { v1: "", v2: "", alphaV1: "", alphaV2: "", maxisV2: "" };

beforeAll(async () => {
  await createTiers();
  const admin = await createTestUser({ isAdmin: true, canBeAdmin: true, tosAccepted: true });
  const adminCookie = await sessionCookie(admin.id);
  supporterCookie = await sessionCookie((await createTestUser({ currentTierId: TIER_2, tosAccepted: true })).id);
  postId = (await createPost({ tiers: [TIER_2], title: "Changelog Hair", version: "V1.0" })).id;
  const v1 = await addZipVersion(postId, "V1.0", MAIN_V1, false);
  const v2 = await addZipVersion(postId, "V2.0", MAIN_V2, true);
  ids.v1 = v1.version.id;
  ids.v2 = v2.version.id;
  ids.alphaV1 = await addVersionFileVia(adminCookie, postId, ids.v1, { role: "variant", label: "Alpha" }, zipBytes(ALPHA_V1), "alpha-v1.zip");
  ids.maxisV2 = await addVersionFileVia(adminCookie, postId, ids.v2, { role: "variant", label: "Maxis Match" }, zipBytes(MAXIS_V2), "maxis-v2.zip");
  ids.alphaV2 = await addVersionFileVia(adminCookie, postId, ids.v2, { role: "variant", label: "Alpha" }, zipBytes(ALPHA_V2), "alpha-v2.zip");
});

async function answer(): Promise<Answer> {
  const response = await callRoute(postApiRoute, { path: `/api/library/posts/${postId}`, params: { id: postId }, cookie: supporterCookie });
  expect(response.status).toBe(200);
  return readJsonBody<Answer>(response);
}

describe("the changelog of each added file", () => {
  it("compares a variant with the same-label variant of the version before, and says a variant the version before lacked is new", async () => {
    const { versions } = await answer();
    const [v2, v1] = versions;
    expect(v2!.id).toBe(ids.v2);
    const alpha = v2!.files!.find((file) => file.fileId === ids.alphaV2)!;
    expect(alpha).toMatchObject({ role: "variant", label: "Alpha", fileName: "alpha-v2.zip", newFile: false, zip: true });
    expect(alpha.changelog!.added.map((entry) => entry.path)).toEqual(["Alpha/lashes.package"]);
    expect(alpha.changelog!.removed.map((entry) => entry.path)).toEqual(["Alpha/brows.package"]);
    expect(alpha.changelog!.changed.map((entry) => [entry.path, entry.before.size, entry.after.size])).toEqual([["Alpha/hair.package", 10, 18]]);
    const maxis = v2!.files!.find((file) => file.fileId === ids.maxisV2)!;
    expect(maxis).toMatchObject({ label: "Maxis Match", newFile: true, changelog: null });
    // The oldest version has nothing before it.
    expect(v1!.files).toEqual([{ fileId: ids.alphaV1, role: "variant", label: "Alpha", fileName: "alpha-v1.zip", newFile: false, zip: true, changelog: null }]);
  });

  it("keeps the main file's changelog as it was", async () => {
    const { versions } = await answer();
    expect(versions[0]!.changelog).toEqual({
      added: [],
      removed: [],
      changed: [{ path: "Mods/main.package", before: expect.objectContaining({ size: 8 }), after: expect.objectContaining({ size: 16 }) }],
    });
    expect(versions[1]!.changelog).toBeNull();
  });

  it("shows on the post page each file's name with its changes, and 'New file' for the new variant", async () => {
    const { versions } = await answer();
    const html = renderToStaticMarkup(createElement(VersionHistoryList, { versions, showHash: false }));
    // One file's block: from its attribute to the next file's block.
    const item = (fileId: string) => html.slice(html.indexOf(`data-file-id="${fileId}"`)).split('data-testid="version-file-changelog"')[0]!;
    expect(item(ids.alphaV2)).toContain("<strong>Alpha</strong>");
    expect(item(ids.alphaV2)).toContain("Added (1)");
    expect(item(ids.alphaV2)).toContain("<code>Alpha/lashes.package</code>");
    expect(item(ids.alphaV2)).toContain("Removed (1)");
    expect(item(ids.alphaV2)).toContain("Changed (1)");
    expect(item(ids.maxisV2)).toContain("New file: the version before had none.");
    // The oldest version lists no file changelogs.
    expect(html).not.toContain(`data-file-id="${ids.alphaV1}"`);
  });
});
