// "Continue With" buttons: plain links, so each is a full-page redirect to the provider.
const PROVIDERS = [
  { href: "/api/auth/login", label: "Continue With Patreon", className: "provider-patreon" },
  { href: "/api/google/auth", label: "Continue With Google", className: "provider-google" },
  { href: "/api/discord/auth", label: "Continue With Discord", className: "provider-discord" },
];

export function LoginProviderButtons() {
  return (
    <div className="provider-buttons">
      {PROVIDERS.map((provider) => (
        <a key={provider.href} href={provider.href} className={`button-secondary provider-button ${provider.className}`}>
          {provider.label}
        </a>
      ))}
    </div>
  );
}
