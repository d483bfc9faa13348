// A post as admins name one in a form (Check access, an idea's "Realized by post"): its id, or
// its exact title, in any case, when only one post has it.
import { db } from "~/db.server";

/** The id of the post `ref` names, or null (unknown, or a title several posts share). */
export async function postIdByRef(ref: string): Promise<string | null> {
  const text = ref.trim();
  if (!text) return null;
  const byId = await db.post.findUnique({ where: { id: text }, select: { id: true } });
  if (byId) return byId.id;
  const byTitle = await db.post.findMany({ where: { title: { equals: text, mode: "insensitive" } }, select: { id: true }, take: 2 });
  return byTitle.length === 1 ? byTitle[0]!.id : null;
}
