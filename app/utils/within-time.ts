// A wait with a bound, for calls that take no signal of their own (a query, another library's
// request): the call goes on, but its caller hears `late()`'s error once `ms` have passed.

export async function withinTime<T>(work: Promise<T>, ms: number, late: () => Error): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const overdue = new Promise<never>((_resolve, reject) => (timer = setTimeout(() => reject(late()), ms)));
  try {
    return await Promise.race([work, overdue]);
  } finally {
    clearTimeout(timer);
  }
}
