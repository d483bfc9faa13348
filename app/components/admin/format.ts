// How the admin area writes dates, money and sign-in methods (UTC, US English).
const dateFormat = new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeZone: "UTC" });
const dollars = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" });

export function formatDate(iso: string): string {
  return dateFormat.format(new Date(iso));
}

export function formatCents(cents: number): string {
  return dollars.format(cents / 100);
}

export function providerLabels(user: { hasPatreon: boolean; hasGoogle: boolean; hasDiscord: boolean; hasPassword: boolean }): string[] {
  return [user.hasPassword ? "Email" : null, user.hasPatreon ? "Patreon" : null, user.hasGoogle ? "Google" : null, user.hasDiscord ? "Discord" : null].filter(
    (label): label is string => label !== null,
  );
}
