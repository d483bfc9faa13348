// Blender extensions (docs/product.md#blender-extensions): where a ZIP keeps its
// blender_manifest.toml, and the one check of that file, after Blender's manual ("How to Create
// Extensions", manifest schema 1.0.0). Pure: the ZIP is read in app/integrations/zip.server.ts.
import { parse, TomlError } from "smol-toml";
import { z } from "zod";

export const BLENDER_MANIFEST_NAME = "blender_manifest.toml";
/** A manifest is a few hundred bytes; more than this is not one. */
export const MAX_BLENDER_MANIFEST_BYTES = 64 * 1024;

/** The kinds an admin can mark a post as, in the /api's and Blender's words. */
export const BLENDER_EXTENSION_TYPES = ["add-on", "theme"] as const;
export type BlenderExtensionType = (typeof BLENDER_EXTENSION_TYPES)[number];

/** The post field: "none" or "" unmarks (null), else one of the kinds. */
export const blenderExtensionSchema = z
  .enum(["none", "", ...BLENDER_EXTENSION_TYPES], { errorMap: () => ({ message: 'The Blender extension must be "none", "add-on" or "theme".' }) })
  .transform((value): BlenderExtensionType | null => (value === "none" || value === "" ? null : value));

export const BLENDER_MESSAGES = {
  notZip: "A Blender extension must be a ZIP file with a blender_manifest.toml. This file was not stored.",
  missing: "This ZIP has no blender_manifest.toml at its root or in its one top folder, so it is not a Blender extension. It was not stored.",
  noFile: "This post has no file yet. Upload the extension's ZIP first, then mark the post as a Blender extension.",
  indexFailed: "Could not make your Blender extensions repository.",
} as const;

/** "The blender_manifest.toml could not be read: …" with the parser's own words (line and column). */
export function unreadableManifestMessage(detail: string): string {
  return `The blender_manifest.toml could not be read: ${detail}. Nothing was stored.`;
}

/** A required field absent: names it. */
export function missingFieldMessage(field: string): string {
  return `The blender_manifest.toml is missing the required field "${field}". Nothing was stored.`;
}

/** A field present but not as Blender wants it: names it and says what it should be. */
export function malformedFieldMessage(field: string, rule: string): string {
  return `The blender_manifest.toml field "${field}" ${rule}. Nothing was stored.`;
}

/** The post is marked one kind, the manifest says another. */
export function wrongTypeMessage(marked: BlenderExtensionType, found: string): string {
  return `The blender_manifest.toml says type = "${found}", but the post is marked as a Blender ${marked}. Nothing was stored.`;
}

const VERSION = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;
const BLENDER_VERSION = /^\d+\.\d+\.\d+$/;
const STRING_LIST = "must be a list of strings";

/** Each field's rule with the words the refusal uses ("must be …"). */
const text = (rule = "must be a non-empty string") => z.string({ invalid_type_error: rule }).trim().min(1, rule);
const stringList = z.array(z.string({ invalid_type_error: STRING_LIST }), { invalid_type_error: STRING_LIST });

const manifestSchema = z.object({
  schema_version: z.string({ invalid_type_error: 'must be "1.0.0"' }).refine((value) => value === "1.0.0", 'must be "1.0.0"'),
  id: z
    .string({ invalid_type_error: "must be a string" })
    .regex(/^[A-Za-z][A-Za-z0-9_]*$/, "must start with a letter and hold only letters, digits and _")
    .refine((value) => !value.endsWith("_"), "must not end with _"),
  version: z.string({ invalid_type_error: "must be a string" }).regex(VERSION, "must be a version like 1.0.0"),
  name: text(),
  tagline: text()
    .refine((value) => value.length <= 64, "must be at most 64 characters")
    .refine((value) => !/[.!?,;:]$/.test(value), "must not end with punctuation"),
  maintainer: text(),
  type: z.enum(BLENDER_EXTENSION_TYPES, { errorMap: () => ({ message: 'must be "add-on" or "theme"' }) }),
  license: z
    .array(
      z
        .string({ invalid_type_error: 'must be a list of SPDX ids like "SPDX:GPL-3.0-or-later"' })
        .regex(/^SPDX:[A-Za-z0-9.+-]+$/, 'must be a list of SPDX ids like "SPDX:GPL-3.0-or-later"'),
      {
        invalid_type_error: 'must be a list of SPDX ids like "SPDX:GPL-3.0-or-later"',
      },
    )
    .min(1, 'must be a list of SPDX ids like "SPDX:GPL-3.0-or-later"'),
  blender_version_min: z
    .string({ invalid_type_error: "must be a Blender version like 4.2.0" })
    .regex(BLENDER_VERSION, "must be a Blender version like 4.2.0")
    .refine((value) => compareVersions(value, "4.2.0") >= 0, "must be 4.2.0 or later (extensions start with Blender 4.2)"),
  // Optional fields that the repository listing carries over when present.
  blender_version_max: z
    .string({ invalid_type_error: "must be a Blender version like 5.0.0" })
    .regex(BLENDER_VERSION, "must be a Blender version like 5.0.0")
    .optional(),
  website: z
    .string({ invalid_type_error: "must be a web address" })
    .regex(/^https?:\/\/\S+$/, "must be a web address starting with http:// or https://")
    .optional(),
  tags: stringList.optional(),
  copyright: stringList.optional(),
  platforms: stringList.optional(),
  permissions: z
    .record(z.string({ invalid_type_error: "must give each permission a reason as a string" }), { invalid_type_error: "must be a table" })
    .optional(),
});

/** A checked manifest: what the version row keeps and the Blender repository lists. */
export type BlenderManifest = z.infer<typeof manifestSchema>;

const REQUIRED_FIELDS = ["schema_version", "id", "version", "name", "tagline", "maintainer", "type", "license", "blender_version_min"] as const;

/** -1, 0 or 1 for two dotted versions (their numeric parts). */
export function compareVersions(a: string, b: string): number {
  const parts = (value: string) => value.split(/[-+]/)[0]!.split(".").map(Number);
  const [left, right] = [parts(a), parts(b)];
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const difference = (left[i] ?? 0) - (right[i] ?? 0);
    if (difference !== 0) return Math.sign(difference);
  }
  return 0;
}

/**
 * Where an extension ZIP keeps its manifest: at its root, or inside the one folder that holds
 * everything (as a repository saved as ZIP has it). Null when neither holds one.
 */
export function blenderManifestPath(paths: readonly string[]): string | null {
  if (paths.includes(BLENDER_MANIFEST_NAME)) return BLENDER_MANIFEST_NAME;
  const tops = new Set(paths.map((path) => (path.includes("/") ? path.slice(0, path.indexOf("/")) : "")));
  if (tops.size !== 1 || tops.has("")) return null;
  const nested = `${[...tops][0]}/${BLENDER_MANIFEST_NAME}`;
  return paths.includes(nested) ? nested : null;
}

/** The result of checking a manifest's text: the manifest, or the one message that refuses it. */
export type ManifestCheck = { ok: true; manifest: BlenderManifest } | { ok: false; message: string };

/** Parses and checks a blender_manifest.toml; the first problem found is named in the message. */
export function checkBlenderManifest(source: string): ManifestCheck {
  let parsed: Record<string, unknown>;
  try {
    parsed = parse(source);
  } catch (error) {
    const detail = error instanceof TomlError ? `line ${error.line}, column ${error.column}: ${error.message.split("\n")[0]}` : String(error);
    return { ok: false, message: unreadableManifestMessage(detail) };
  }
  const missing = REQUIRED_FIELDS.find((field) => parsed[field] === undefined);
  if (missing) return { ok: false, message: missingFieldMessage(missing) };
  const checked = manifestSchema.safeParse(parsed);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    return { ok: false, message: malformedFieldMessage(String(issue.path[0] ?? "?"), issue.message) };
  }
  return { ok: true, manifest: checked.data };
}
