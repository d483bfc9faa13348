// "Continue With" buttons: plain links, so each is a full-page redirect to the provider. Each
// wears its provider's colours and mark so it is recognised at a glance.
import { DiscordMark, GoogleMark, PatreonMark } from "~/components/brand-icons";

const PROVIDERS = [
  { href: "/api/auth/login", label: "Continue With Patreon", className: "provider-patreon", Mark: PatreonMark },
  { href: "/api/google/auth", label: "Continue With Google", className: "provider-google", Mark: GoogleMark },
  { href: "/api/discord/auth", label: "Continue With Discord", className: "provider-discord", Mark: DiscordMark },
];

export function LoginProviderButtons() {
  return (
    <div className="provider-buttons">
      {PROVIDERS.map(({ href, label, className, Mark }) => (
        <a key={href} href={href} className={`provider-button ${className}`}>
          <Mark />
          <span className="provider-label">{label}</span>
        </a>
      ))}
    </div>
  );
}
