// The audit log's reading (docs/product.md#audit-log): its filters from the /admin address, and
// what an entry changed (only the fields whose value differs, before -> after). Pure.
import { z } from "zod";

export const AUDIT_PAGE_SIZE = 25;

const day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/)
  .refine((value) => !Number.isNaN(Date.parse(`${value}T00:00:00Z`)))
  .optional()
  .catch(undefined);

/** `audit_action`, `audit_actor` (a user id, or "system"), `audit_from` / `audit_to` (UTC days, inclusive), `audit_page`. */
export const auditFilterSchema = z.object({
  action: z.string().trim().max(100).optional().catch(undefined),
  actor: z.string().trim().max(64).optional().catch(undefined),
  from: day,
  to: day,
  page: z.coerce.number().int().min(1).max(10_000).catch(1).default(1),
});
export type AuditFilter = z.infer<typeof auditFilterSchema>;

export function parseAuditFilter(params: URLSearchParams): AuditFilter {
  const value = (name: string) => params.get(name) || undefined;
  return auditFilterSchema.parse({
    action: value("audit_action"),
    actor: value("audit_actor"),
    from: value("audit_from"),
    to: value("audit_to"),
    page: value("audit_page"),
  });
}

/** The filter as address parameters (the other parameters of the page kept by the caller). */
export function auditFilterParams(filter: Partial<AuditFilter>): [string, string][] {
  const pairs: [string, string][] = [];
  if (filter.action) pairs.push(["audit_action", filter.action]);
  if (filter.actor) pairs.push(["audit_actor", filter.actor]);
  if (filter.from) pairs.push(["audit_from", filter.from]);
  if (filter.to) pairs.push(["audit_to", filter.to]);
  if (filter.page && filter.page > 1) pairs.push(["audit_page", String(filter.page)]);
  return pairs;
}

export type AuditChange = { field: string; before?: unknown; after?: unknown };

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/**
 * What an entry changed: each field of before or after whose value differs, in order; an entry
 * with only an after (a creation) lists its fields from nothing.
 */
export function auditChanges(before: unknown, after: unknown): AuditChange[] {
  const from = before && typeof before === "object" && !Array.isArray(before) ? (before as Record<string, unknown>) : {};
  const to = after && typeof after === "object" && !Array.isArray(after) ? (after as Record<string, unknown>) : {};
  const fields = [...new Set([...Object.keys(from), ...Object.keys(to)])];
  return fields.filter((field) => !same(from[field], to[field])).map((field) => ({ field, before: from[field], after: to[field] }));
}

/** A value as the log shows it: "none" for null, text as it is, anything else as short JSON. */
export function auditValue(value: unknown): string {
  if (value === undefined) return "—";
  if (value === null) return "none";
  if (typeof value === "string") return value;
  const text = JSON.stringify(value);
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}
