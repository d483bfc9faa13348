// Home page link panels: listing, admin changes (always audited) and their images.
import { createHash } from "node:crypto";
import { db, queryRows } from "~/db.server";
import type { Panel } from "~/generated/prisma/client";
import { storage } from "~/integrations/storage.server";
import { InvalidImageError, reencodeImage } from "~/integrations/images.server";
import { recordAudit } from "~/models/audit.server";
import { DomainError } from "~/models/errors";
import type { PanelInput } from "~/utils/panel-schemas";

export const PANEL_NOT_FOUND_MESSAGE = "Panel not found.";

/** Panels in the order the home page shows them: ascending index. */
/**
 * Every panel in home-page order. Plain SQL: the home page reads it on every request, and a
 * Prisma query costs more CPU to compile than the query takes (docs/decisions/006).
 */
export async function listPanels(): Promise<Panel[]> {
  return queryRows<Panel>(
    `SELECT id, title, description, link, index, image_version AS "imageVersion", created_at AS "createdAt", updated_at AS "updatedAt"
     FROM panels ORDER BY index ASC, created_at ASC`,
    [],
  );
}

export async function getPanel(id: string): Promise<Panel | null> {
  return db.panel.findUnique({ where: { id } });
}

export function panelImageKey(panelId: string): string {
  return `panels/${panelId}.jpg`;
}

/** The public address of a panel's image; the version makes it cacheable forever. */
export function panelImageUrl(panel: Pick<Panel, "id" | "imageVersion">): string | null {
  return panel.imageVersion ? `/panel_images/${panel.id}.jpg?v=${panel.imageVersion}` : null;
}

/** The spec's Panel shape for `/api/panels`. */
export function toApiPanel(panel: Panel) {
  return {
    _id: panel.id,
    title: panel.title,
    description: panel.description,
    link: panel.link,
    index: panel.index,
    image: panel.imageVersion !== null,
    imageUrl: panelImageUrl(panel),
  };
}

/** `/api/panels/{id}/expanded`: the panel plus what an editor needs. */
export function toExpandedPanel(panel: Panel) {
  return {
    ...toApiPanel(panel),
    imageVersion: panel.imageVersion,
    createdAt: panel.createdAt.toISOString(),
    updatedAt: panel.updatedAt.toISOString(),
  };
}

/** Checks and re-encodes an upload before anything is written; a bad file is a 400. Panels and inspiration ideas alike. */
export async function prepareImage(bytes: Buffer): Promise<{ jpeg: Buffer; version: string }> {
  try {
    const jpeg = await reencodeImage(bytes, { maxWidth: 1600, maxHeight: 1600 });
    return { jpeg, version: createHash("sha256").update(jpeg).digest("hex").slice(0, 16) };
  } catch (error) {
    if (error instanceof InvalidImageError) throw new DomainError(400, error.message);
    throw error;
  }
}

function snapshot(panel: Panel) {
  return { title: panel.title, description: panel.description, link: panel.link, index: panel.index, imageVersion: panel.imageVersion };
}

/** Creates a panel (with its image, when given) and records it in the audit log. */
export async function createPanel(actorId: string, input: PanelInput, image?: Buffer | null): Promise<Panel> {
  const prepared = image ? await prepareImage(image) : null;
  const store = prepared ? await storage() : null;
  return db.$transaction(async (tx) => {
    // Without an index, a new panel goes after the others.
    const last = input.index === undefined ? await tx.panel.aggregate({ _max: { index: true } }) : null;
    const panel = await tx.panel.create({
      data: {
        title: input.title,
        description: input.description ?? null,
        link: input.link,
        index: input.index ?? (last?._max.index === null || last?._max.index === undefined ? 0 : last._max.index + 1),
        imageVersion: prepared?.version ?? null,
      },
    });
    // Stored before the commit: if storing fails, the panel is not created either.
    if (prepared && store) await store.put(panelImageKey(panel.id), prepared.jpeg, "image/jpeg");
    await recordAudit({ actorId, action: "panel.create", targetType: "panel", targetId: panel.id, after: snapshot(panel) }, tx);
    return panel;
  });
}

/** Updates a panel's fields (and image, when given); index and description keep their value when not given. */
export async function updatePanel(actorId: string, id: string, input: PanelInput, image?: Buffer | null): Promise<Panel> {
  const prepared = image ? await prepareImage(image) : null;
  const store = prepared ? await storage() : null;
  return db.$transaction(async (tx) => {
    const before = await tx.panel.findUnique({ where: { id } });
    if (!before) throw new DomainError(404, PANEL_NOT_FOUND_MESSAGE);
    const panel = await tx.panel.update({
      where: { id },
      data: {
        title: input.title,
        link: input.link,
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...(input.index !== undefined ? { index: input.index } : {}),
        ...(prepared ? { imageVersion: prepared.version } : {}),
      },
    });
    if (prepared && store) await store.put(panelImageKey(panel.id), prepared.jpeg, "image/jpeg");
    await recordAudit({ actorId, action: "panel.update", targetType: "panel", targetId: id, before: snapshot(before), after: snapshot(panel) }, tx);
    return panel;
  });
}

/** Replaces a panel's image; its URL changes with it, so caches never show the old one. */
export async function setPanelImage(actorId: string, id: string, image: Buffer): Promise<Panel> {
  const prepared = await prepareImage(image);
  const store = await storage();
  return db.$transaction(async (tx) => {
    const before = await tx.panel.findUnique({ where: { id } });
    if (!before) throw new DomainError(404, PANEL_NOT_FOUND_MESSAGE);
    await store.put(panelImageKey(id), prepared.jpeg, "image/jpeg");
    const panel = await tx.panel.update({ where: { id }, data: { imageVersion: prepared.version } });
    await recordAudit(
      {
        actorId,
        action: "panel.image",
        targetType: "panel",
        targetId: id,
        before: { imageVersion: before.imageVersion },
        after: { imageVersion: panel.imageVersion },
      },
      tx,
    );
    return panel;
  });
}

/** Deletes a panel and its image. */
export async function deletePanel(actorId: string, id: string): Promise<void> {
  const deleted = await db.$transaction(async (tx) => {
    const before = await tx.panel.findUnique({ where: { id } });
    if (!before) throw new DomainError(404, PANEL_NOT_FOUND_MESSAGE);
    await tx.panel.delete({ where: { id } });
    await recordAudit({ actorId, action: "panel.delete", targetType: "panel", targetId: id, before: snapshot(before) }, tx);
    return before;
  });
  if (deleted.imageVersion) await (await storage()).delete(panelImageKey(id));
}
