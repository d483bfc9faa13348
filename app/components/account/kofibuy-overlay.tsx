import { Link, useLocation } from "@remix-run/react";
import { useEffect, useState } from "react";

/**
 * The shop's thank-you overlay, opened by a URL hash containing "kofibuy". Without JavaScript
 * the CSS `:target` rule shows it for the exact hash #kofibuy.
 */
export function LoginKofibuyOverlay({ loggedIn }: { loggedIn: boolean }) {
  const location = useLocation();
  const [hydrated, setHydrated] = useState(false);
  const [open, setOpen] = useState(false);
  useEffect(() => {
    setHydrated(true);
    setOpen(location.hash.toLowerCase().includes("kofibuy"));
  }, [location.hash]);

  function close() {
    setOpen(false);
    window.history.replaceState(window.history.state, "", window.location.pathname + window.location.search);
  }

  return (
    <div id="kofibuy" className={`kofibuy-overlay modal-backdrop${open ? " is-open" : ""}`} data-js={hydrated ? "" : undefined} hidden={hydrated && !open}>
      <div className="modal" role="dialog" aria-modal="true" aria-labelledby="kofibuy-title">
        <h2 id="kofibuy-title">Thank you for your purchase&amp;Support!</h2>
        {loggedIn ? (
          <>
            <p>Your purchase is confirmed. If your Ko-fi account isn&apos;t linked, please do so in your profile.</p>
            <div className="button-row">
              <Link className="button" to="/library">
                Go to Library
              </Link>
              <a className="button-secondary" href="#shop-email" onClick={() => setOpen(false)}>
                Link Account
              </a>
            </div>
          </>
        ) : (
          <>
            <p>Create an account to unlock all your purchases. If you bought as a guest, just use the email you purchased with.</p>
            <div className="button-row">
              <Link className="button" to="/login?tab=signup" onClick={() => setOpen(false)}>
                Create Account
              </Link>
              <Link className="button-secondary" to="/login?tab=login" onClick={() => setOpen(false)}>
                Log In
              </Link>
            </div>
          </>
        )}
        <p>
          {hydrated ? (
            <button type="button" className="link-button" onClick={close}>
              Close
            </button>
          ) : (
            <a href={`${location.pathname}${location.search}`}>Close</a>
          )}
        </p>
      </div>
    </div>
  );
}
