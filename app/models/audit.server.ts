// The audit log: every admin change, with who, what, before and after.
import { db, Prisma } from "~/db.server";
import { AUDIT_PAGE_SIZE, auditChanges, type AuditFilter } from "~/utils/audit-log";

type AuditClient = Pick<typeof db, "auditEntry">;

export type AuditInput = {
  actorId: string | null;
  action: string;
  targetType: string;
  targetId?: string | null;
  before?: unknown;
  after?: unknown;
};

/** JSON-safe copy: BigInt and Date values become strings. */
function toJson(value: unknown): Prisma.InputJsonValue | typeof Prisma.JsonNull {
  if (value === undefined || value === null) return Prisma.JsonNull;
  return JSON.parse(JSON.stringify(value, (_key, item: unknown) => (typeof item === "bigint" ? item.toString() : item))) as Prisma.InputJsonValue;
}

/** Records an admin change; pass the transaction client to keep it atomic with the change. */
export async function recordAudit(entry: AuditInput, client: AuditClient = db): Promise<void> {
  await client.auditEntry.create({
    data: {
      actorId: entry.actorId,
      action: entry.action,
      targetType: entry.targetType,
      targetId: entry.targetId ?? null,
      before: toJson(entry.before),
      after: toJson(entry.after),
    },
  });
}

/**
 * Clears before and after of the entries about a user, and of every entry whose before or after
 * holds the user's id or one of `emails` (any case) as a whole string value, at any depth. Values
 * are compared whole, never as patterns, so an entry naming another account keeps its details.
 */
export async function redactAuditOf(client: Pick<Prisma.TransactionClient, "$executeRaw">, userId: string, emails: string[]): Promise<number> {
  const addresses = emails.map((email) => email.toLowerCase());
  return client.$executeRaw`UPDATE audit_log a SET before = NULL, after = NULL
    WHERE (a.target_type = 'user' AND a.target_id = ${userId})
       OR EXISTS (
         SELECT 1 FROM (SELECT jsonb_path_query(a.before, 'strict $.**') UNION ALL SELECT jsonb_path_query(a.after, 'strict $.**')) AS found(value)
          WHERE jsonb_typeof(found.value) = 'string'
            AND (found.value #>> '{}' = ${userId} OR lower(found.value #>> '{}') = ANY (${addresses}::text[])))`;
}

/**
 * A page of the audit log as the /admin page shows it (actor by name or email), newest first,
 * filtered by action, actor ("system" for entries without one) and UTC days; with the actions
 * and actors there are, for the filter's lists.
 */
export async function listAuditPage(filter: AuditFilter) {
  const where: Prisma.AuditEntryWhereInput = {
    ...(filter.action ? { action: filter.action } : {}),
    ...(filter.actor ? { actorId: filter.actor === "system" ? null : filter.actor } : {}),
    ...(filter.from || filter.to
      ? {
          createdAt: {
            ...(filter.from ? { gte: new Date(`${filter.from}T00:00:00Z`) } : {}),
            ...(filter.to ? { lt: new Date(Date.parse(`${filter.to}T00:00:00Z`) + 86_400_000) } : {}),
          },
        }
      : {}),
  };
  const [entries, actions, actorIds] = await Promise.all([
    db.auditEntry.findMany({
      where,
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      skip: (filter.page - 1) * AUDIT_PAGE_SIZE,
      // One more than a page says whether an older page exists.
      take: AUDIT_PAGE_SIZE + 1,
      include: { actor: { select: { id: true, email: true, fullName: true } } },
    }),
    db.auditEntry.findMany({ distinct: ["action"], select: { action: true }, orderBy: { action: "asc" } }),
    db.auditEntry.findMany({ distinct: ["actorId"], select: { actorId: true } }),
  ]);
  const page = entries.slice(0, AUDIT_PAGE_SIZE);
  // Users the entries are about and the actors, by email or name, in one query.
  const userIds = [
    ...new Set([
      ...page.filter((entry) => entry.targetType === "user" && entry.targetId).map((entry) => entry.targetId!),
      ...actorIds.map((row) => row.actorId).filter((id): id is string => id !== null),
    ]),
  ];
  const users = userIds.length
    ? await db.user.findMany({ where: { id: { in: userIds } }, select: { id: true, email: true, fullName: true, number: true } })
    : [];
  const labels = new Map(users.map((user) => [user.id, user.email ?? user.fullName ?? `#${user.number}`]));
  // Actors by name first, as the rows name them.
  const names = new Map(users.map((user) => [user.id, user.fullName ?? user.email ?? user.id]));
  const actorName = (actor: { id: string; email: string | null; fullName: string | null }) => actor.fullName ?? actor.email ?? actor.id;
  return {
    rows: page.map((entry) => ({
      targetLabel: entry.targetId ? (labels.get(entry.targetId) ?? null) : null,
      id: entry.id,
      createdAt: entry.createdAt.toISOString(),
      actor: entry.actor ? actorName(entry.actor) : "system",
      action: entry.action,
      targetType: entry.targetType,
      targetId: entry.targetId,
      changes: auditChanges(entry.before, entry.after),
    })),
    hasOlder: entries.length > AUDIT_PAGE_SIZE,
    actions: actions.map((row) => row.action),
    actors: actorIds
      .map((row) => (row.actorId === null ? { id: "system", label: "system" } : { id: row.actorId, label: names.get(row.actorId) ?? row.actorId }))
      .sort((a, b) => a.label.localeCompare(b.label)),
  };
}
