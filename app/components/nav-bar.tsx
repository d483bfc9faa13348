import { Link, NavLink } from "@remix-run/react";
import { ThemeToggle } from "~/components/theme-toggle";

const links = [
  { to: "/", label: "Home" },
  { to: "/library", label: "Library" },
  { to: "/infos", label: "Infos" },
  { to: "/inspiration-vote", label: "Inspiration Vote" },
];

export function NavBar({ account }: { account: { name: string; isAdmin: boolean } | null }) {
  return (
    <header className="site-header">
      <nav className="nav" aria-label="Main">
        <Link to="/" className="nav-logo">
          <img src="/logo.svg" alt="Creator Library" width={36} height={36} />
          <span className="nav-logo-text" aria-hidden="true">
            Creator Library
          </span>
        </Link>
        <ul className="nav-links">
          {links.map((link) => (
            <li key={link.to}>
              <NavLink to={link.to} end={link.to === "/"} prefetch="intent">
                {link.label}
              </NavLink>
            </li>
          ))}
        </ul>
        <div className="nav-end">
          <NavLink to="/login" className="nav-account" data-testid="account-link">
            {account ? account.name : "Login"}
          </NavLink>
          <ThemeToggle />
        </div>
      </nav>
    </header>
  );
}
