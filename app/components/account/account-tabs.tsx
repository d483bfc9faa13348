// The account area's tab row: one link per page, each page its own URL, so it works without
// JavaScript. The library comes first (updates, downloads, feed and mails, API tokens), then the settings
// (the account page at /login: profile, Ko-fi, Patreon, password), then the data export and
// the account deletion. The active tab is marked with aria-current="page" (links, not the
// in-page tab widget). On a phone the row scrolls sideways; with JavaScript the active tab is
// scrolled into view.
import { Link } from "@remix-run/react";
import { useEffect, useRef } from "react";

export type AccountTab = "updates" | "downloads" | "notifications" | "tokens" | "settings" | "export" | "delete";

export const ACCOUNT_TABS: { key: AccountTab; to: string; label: string }[] = [
  { key: "updates", to: "/account/updates", label: "Updates" },
  { key: "downloads", to: "/account/downloads", label: "My downloads" },
  { key: "notifications", to: "/account/notifications", label: "Feed and mails" },
  { key: "tokens", to: "/account/tokens", label: "API tokens" },
  { key: "settings", to: "/login", label: "Settings" },
  { key: "export", to: "/account/export", label: "Export my data" },
  { key: "delete", to: "/account/delete", label: "Delete account" },
];

export function AccountTabs({ current }: { current: AccountTab }) {
  const row = useRef<HTMLUListElement>(null);
  useEffect(() => {
    const list = row.current;
    const active = list?.querySelector<HTMLElement>('[aria-current="page"]');
    if (!list || !active || list.scrollWidth <= list.clientWidth) return;
    // Only the row scrolls (scrollIntoView would move the page too). The row is the tabs'
    // offset parent (position: relative in account.css).
    const left = active.offsetLeft;
    if (left + active.offsetWidth > list.scrollLeft + list.clientWidth || left < list.scrollLeft) {
      list.scrollLeft = Math.max(0, left - (list.clientWidth - active.offsetWidth) / 2);
    }
  }, [current]);
  return (
    <nav className="account-tabs" aria-label="Account" data-testid="account-tabs">
      <ul ref={row}>
        {ACCOUNT_TABS.map((tab) => (
          <li key={tab.key}>
            <Link
              to={tab.to}
              className={tab.key === "delete" ? "account-tab account-tab-danger" : "account-tab"}
              aria-current={tab.key === current ? "page" : undefined}
            >
              {tab.label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** An account-area page: the tab row above the page's own content. */
export function AccountArea({ current, children }: { current: AccountTab; children: React.ReactNode }) {
  return (
    <div className="account-area">
      <AccountTabs current={current} />
      {children}
    </div>
  );
}
