/** The /admin address for a search page, optionally with a user open in the editor. */
export function adminHref({ search, page, user }: { search?: string; page?: number; user?: string | null }): string {
  const params = new URLSearchParams();
  if (search) params.set("search", search);
  if (page && page > 1) params.set("page", String(page));
  if (user) params.set("user", user);
  const query = params.toString();
  return query ? `/admin?${query}` : "/admin";
}
