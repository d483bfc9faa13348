// Home panel fields: one schema shared by the home form, its action and `/api/panels`.
import { z } from "zod";

export const PANEL_REQUIRED_MESSAGE = "Title and Link are required.";
export const PANEL_INDEX_MESSAGE = "Please enter a valid index.";
export const PANEL_LINK_MESSAGE = "Please enter a valid link (https://... or a path starting with /).";

/** A link a visitor may safely open: http(s) or a path on this site (never javascript: etc.). */
export function isSafeLink(value: string): boolean {
  if (value.startsWith("/")) return !value.startsWith("//") && !value.startsWith("/\\");
  try {
    const url = new URL(value);
    return url.protocol === "https:" || url.protocol === "http:";
  } catch {
    return false;
  }
}

const requiredText = (max: number) =>
  z.preprocess(
    (value) => (value === undefined || value === null ? "" : value),
    z.string({ invalid_type_error: PANEL_REQUIRED_MESSAGE }).trim().min(1, PANEL_REQUIRED_MESSAGE).max(max),
  );

/** Index: a whole number of 0 or more; blank means "not given". */
const indexField = z.preprocess(
  (value) => (value === "" || value === null ? undefined : typeof value === "string" ? Number(value) : value),
  z.number({ invalid_type_error: PANEL_INDEX_MESSAGE }).int(PANEL_INDEX_MESSAGE).min(0, PANEL_INDEX_MESSAGE).max(1_000_000, PANEL_INDEX_MESSAGE).optional(),
);

export const panelInputSchema = z.object({
  title: requiredText(200),
  link: requiredText(2000).refine(isSafeLink, PANEL_LINK_MESSAGE),
  description: z.preprocess((value) => (typeof value === "string" && value.trim() === "" ? null : value), z.string().trim().max(1000).nullish()),
  index: indexField,
});

export type PanelInput = z.infer<typeof panelInputSchema>;
