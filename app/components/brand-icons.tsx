// The sign-in providers' marks, drawn here as small inline SVGs (no external assets, no fonts):
// Google's four-colour G, Discord's controller face and Patreon's disc and bar. They are
// decorative; the button's text names the provider.
type IconProps = { size?: number };

export function GoogleMark({ size = 20 }: IconProps) {
  // A ring in four arcs (red top, yellow left, green bottom, blue right) and the blue crossbar.
  return (
    <svg className="brand-icon" viewBox="0 0 24 24" width={size} height={size} aria-hidden="true" focusable="false">
      <g fill="none" strokeWidth="4">
        <path stroke="#EA4335" d="M17.3 6.7A7.5 7.5 0 0 0 5.2 8.83" />
        <path stroke="#FBBC05" d="M5.2 8.83a7.5 7.5 0 0 0 0 6.34" />
        <path stroke="#34A853" d="M5.2 15.17A7.5 7.5 0 0 0 17.3 17.3" />
        <path stroke="#4285F4" d="M17.3 17.3A7.5 7.5 0 0 0 19.5 12" />
      </g>
      <path fill="#4285F4" d="M12 10h9.5v4H12z" />
    </svg>
  );
}

export function DiscordMark({ size = 20 }: IconProps) {
  // The face: a wide rounded body with two feet, the eyes cut out (even-odd fill).
  return (
    <svg className="brand-icon" viewBox="0 0 24 24" width={size} height={size} aria-hidden="true" focusable="false">
      <path
        fill="currentColor"
        fillRule="evenodd"
        d="M5.6 6.4C7.5 5.2 9.3 4.8 10 4.8l.4.8c1.1-.2 2.1-.2 3.2 0l.4-.8c.7 0 2.5.4 4.4 1.6 1.8 2.8 2.5 5.7 2.3 9.1-1.6 1.3-3.2 2-4.6 2.4l-.9-1.4c.6-.2 1.1-.5 1.6-.8-3.2 1.5-6.6 1.5-9.8 0 .5.3 1 .6 1.6.8l-.9 1.4c-1.4-.4-3-1.1-4.6-2.4-.2-3.4.5-6.3 2.3-9.1ZM7.8 12.3a1.5 1.7 0 1 0 3 0 1.5 1.7 0 1 0-3 0Zm5.4 0a1.5 1.7 0 1 0 3 0 1.5 1.7 0 1 0-3 0Z"
      />
    </svg>
  );
}

export function PatreonMark({ size = 20 }: IconProps) {
  return (
    <svg className="brand-icon" viewBox="0 0 24 24" width={size} height={size} aria-hidden="true" focusable="false">
      <circle cx="14.6" cy="9.6" r="6.1" fill="currentColor" />
      <rect x="3" y="3.5" width="3.6" height="17" rx="0.6" fill="currentColor" />
    </svg>
  );
}
