// The account page's "Your library and data" panel: my downloads, updates, the data export and
// account deletion. The export is a plain form post answered with a JSON file, so it works the
// same with and without JavaScript (reloadDocument: the browser saves the file).
import { Form, Link } from "@remix-run/react";

export function AccountLibraryPanel() {
  return (
    <section className="card account-panel" aria-labelledby="your-library-title" data-testid="account-library-panel">
      <h2 id="your-library-title">Your library and data</h2>
      <ul className="account-links">
        <li>
          <Link to="/account/updates">Updates for you</Link> — posts updated since you downloaded them
        </li>
        <li>
          <Link to="/account/notifications">Updates by feed and mail</Link> — your private feed and update mails
        </li>
        <li>
          <Link to="/account/downloads">My downloads</Link> — what you downloaded, when, and the leak-trace number recorded
        </li>
      </ul>
      <Form method="post" action="/account/data" reloadDocument>
        <button type="submit" className="button-secondary">
          Download my data
        </button>
      </Form>
      <p className="muted">One JSON file with everything stored about your account (no passwords or tokens).</p>
      <p>
        <Link to="/account/delete">Delete my account</Link>
      </p>
    </section>
  );
}

/** Links between the account area's pages. */
export function AccountAreaNav({ current }: { current: "downloads" | "updates" | "notifications" | "delete" }) {
  const links = [
    { to: "/login", label: "Account", key: "account" },
    { to: "/account/updates", label: "Updates for you", key: "updates" },
    { to: "/account/downloads", label: "My downloads", key: "downloads" },
    { to: "/account/notifications", label: "Feed and mails", key: "notifications" },
  ];
  return (
    <nav className="account-area-nav" aria-label="Account">
      <ul>
        {links.map((link) => (
          <li key={link.key}>
            <Link to={link.to} aria-current={link.key === current ? "page" : undefined}>
              {link.label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
