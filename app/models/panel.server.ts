// Home page link panels.
import { db } from "~/db.server";
import type { Panel } from "~/generated/prisma/client";

/** Panels in the order the home page shows them: ascending index. */
export async function listPanels(): Promise<Panel[]> {
  return db.panel.findMany({ orderBy: [{ index: "asc" }, { createdAt: "asc" }] });
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
