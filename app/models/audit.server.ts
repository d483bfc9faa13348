// The audit log: every admin change, with who, what, before and after.
import { db, Prisma } from "~/db.server";

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

export async function listAuditEntries({ take = 50, cursor }: { take?: number; cursor?: string } = {}) {
  return db.auditEntry.findMany({
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take,
    ...(cursor ? { skip: 1, cursor: { id: cursor } } : {}),
    include: { actor: { select: { id: true, email: true, fullName: true } } },
  });
}

/** The latest entries as the /admin page shows them (actor by name or email). */
export async function listRecentAuditRows(take = 25) {
  const entries = await listAuditEntries({ take });
  // Users the entries are about, by email or name, in one query.
  const userIds = [...new Set(entries.filter((entry) => entry.targetType === "user" && entry.targetId).map((entry) => entry.targetId!))];
  const targets = userIds.length
    ? await db.user.findMany({ where: { id: { in: userIds } }, select: { id: true, email: true, fullName: true, number: true } })
    : [];
  const targetLabels = new Map(targets.map((user) => [user.id, user.email ?? user.fullName ?? `#${user.number}`]));
  return entries.map((entry) => ({
    targetLabel: entry.targetId ? (targetLabels.get(entry.targetId) ?? null) : null,
    id: entry.id,
    createdAt: entry.createdAt.toISOString(),
    actor: entry.actor ? (entry.actor.fullName ?? entry.actor.email ?? entry.actor.id) : "system",
    action: entry.action,
    targetType: entry.targetType,
    targetId: entry.targetId,
    before: entry.before,
    after: entry.after,
  }));
}
