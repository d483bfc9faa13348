// Library order is newest order_date first. A moved post lands 1 minute after the post that
// will follow it, or 1 minute before the one above it when it goes to the end (docs/product.md, "Set Index").

export const REORDER_OFFSET_MS = 60 * 1000;

export function reorderDate(neighbours: { previous?: Date | null; next?: Date | null }, now = new Date()): Date {
  if (neighbours.next) {
    const after = neighbours.next.getTime() + REORDER_OFFSET_MS;
    // Neighbours closer than a minute apart: halfway keeps the post between them.
    if (neighbours.previous && after >= neighbours.previous.getTime()) {
      return new Date(Math.floor((neighbours.next.getTime() + neighbours.previous.getTime()) / 2));
    }
    return new Date(after);
  }
  if (neighbours.previous) return new Date(neighbours.previous.getTime() - REORDER_OFFSET_MS);
  return now;
}

/**
 * The order date that puts a post at `index` (0 = first) of a list already sorted newest first
 * that does not contain the post itself.
 */
export function orderDateForIndex(others: { orderDate: Date }[], index: number, now = new Date()): Date {
  const position = Math.max(0, Math.min(Math.floor(index), others.length));
  return reorderDate({ previous: others[position - 1]?.orderDate, next: others[position]?.orderDate }, now);
}
