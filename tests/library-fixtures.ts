// Data for library and download tests: tiers, posts of every kind with stored files.
import { db } from "~/db.server";
import type { Prisma } from "~/generated/prisma/client";
import { storage } from "~/integrations/storage.server";

export const TIER_1 = "8824971";
export const TIER_2 = "8825009";
export const TIER_3 = "21786318";

export async function createTiers() {
  // Migration 0030 holds these ids already (without prices): give them the fixtures' values.
  const tiers = [
    { id: TIER_1, title: "Tier 1", isPaid: true, canVote: false, subscribeLabel: "Tier 1", amountCents: 300 },
    { id: TIER_2, title: "Tier 2", isPaid: true, canVote: true, subscribeLabel: "Tier 2", amountCents: 500 },
    { id: TIER_3, title: "Tier 3", isPaid: true, canVote: true, subscribeLabel: "Tier 3", amountCents: 1000 },
  ];
  for (const tier of tiers) await db.tier.upsert({ where: { id: tier.id }, create: tier, update: tier });
}

/** Deterministic file content of a given size. */
export function fileBytes(size: number, seed = 3): Buffer {
  const buffer = Buffer.alloc(size);
  for (let index = 0; index < size; index++) buffer[index] = (index * 131 + seed * 7) & 0xff;
  return buffer;
}

let counter = 0;

export async function createPost(
  options: {
    paid?: boolean;
    kofiOnly?: boolean;
    kofiId?: string | null;
    tiers?: string[];
    firstTiers?: string[];
    enabled?: boolean;
    version?: string;
    title?: string;
    firstPublishedAt?: Date;
    orderDate?: Date;
    fileSize?: number | null;
  } = {},
) {
  counter += 1;
  const id = `${900000 + counter}`;
  let file: { driveFileId: string; fileName: string; fileSize: bigint; bytes: Buffer } | undefined;
  if (options.fileSize !== null) {
    const bytes = fileBytes(options.fileSize ?? 4096, counter);
    const fileName = `post-${id}.package`;
    const key = `posts/${id}/${fileName}`;
    await (await storage()).put(key, bytes);
    file = { driveFileId: key, fileName, fileSize: BigInt(bytes.length), bytes };
  }
  const published = options.firstPublishedAt ?? new Date(Date.now() - 30 * 24 * 3600 * 1000);
  const data: Prisma.PostCreateInput = {
    id,
    title: options.title ?? `Post ${counter}`,
    paidContent: options.paid ?? true,
    isKofiOnly: options.kofiOnly ?? false,
    kofiId: options.kofiId === undefined ? `K${id}` : options.kofiId,
    enabled: options.enabled ?? true,
    version: options.version ?? "V1.0",
    firstPublishedAt: published,
    publishedAt: published,
    lastUpdated: published,
    orderDate: options.orderDate ?? new Date(Date.now() - counter * 60_000),
    driveFileId: file?.driveFileId ?? null,
    fileName: file?.fileName ?? null,
    fileSize: file?.fileSize ?? null,
    tiers: {
      create: [
        ...(options.tiers ?? []).map((tierId) => ({ tierId, kind: "CURRENT" as const })),
        ...(options.firstTiers ?? []).map((tierId) => ({ tierId, kind: "FIRST" as const })),
      ],
    },
  };
  const post = await db.post.create({ data });
  return { ...post, bytes: file?.bytes ?? Buffer.alloc(0) };
}
