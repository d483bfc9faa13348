// How the admin area writes money and sign-in methods (US English); dates: app/utils/dates.ts.
const dollars = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" });

export function formatCents(cents: number): string {
  return dollars.format(cents / 100);
}

export function providerLabels(user: { hasPatreon: boolean; hasGoogle: boolean; hasDiscord: boolean; hasPassword: boolean }): string[] {
  return [user.hasPassword ? "Email" : null, user.hasPatreon ? "Patreon" : null, user.hasGoogle ? "Google" : null, user.hasDiscord ? "Discord" : null].filter(
    (label): label is string => label !== null,
  );
}
