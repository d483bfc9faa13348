// The account page's shop-platform panel: verified shop emails, the one pending email with code
// entry, resend (60 s countdown) and cancel, and a form to link a new email. Plain forms posting
// to /account/shop-email; with JavaScript they go through fetchers and show pending states.
import { useFetcher, useLocation } from "@remix-run/react";
import { useEffect, useId, useRef, useState } from "react";
import { EmailText } from "~/components/email-text";
import { Field, SubmitButton } from "~/components/form";
import accountStyles from "~/styles/account.css?url";
import { RESEND_COOLDOWN_SECONDS } from "~/utils/form-hints";

export const SHOP_EMAIL_ACTION = "/account/shop-email";

/** Stylesheet of both account panels, for the `links` of a page that renders them. */
export function accountPanelLinks() {
  return [{ rel: "stylesheet", href: accountStyles }];
}

export type ShopEmailPanelUser = { kofiEmails: { email: string; emailVerified: boolean }[] };

function useCountdown(start: number, restartKey: unknown) {
  const [left, setLeft] = useState(start);
  useEffect(() => {
    setLeft(start);
    if (start <= 0) return;
    const endsAt = Date.now() + start * 1000;
    // Counted from the end time, so a throttled background tab still shows the right value.
    const timer = setInterval(() => {
      const remaining = Math.max(0, Math.ceil((endsAt - Date.now()) / 1000));
      setLeft(remaining);
      if (remaining === 0) clearInterval(timer);
    }, 1000);
    return () => clearInterval(timer);
  }, [start, restartKey]);
  return left;
}

function ReturnField() {
  const location = useLocation();
  return <input type="hidden" name="redirectTo" value={`${location.pathname}${location.search}`} />;
}

function PendingEmail({ email, resendInSeconds }: { email: string; resendInSeconds: number }) {
  const verify = useFetcher({ key: "shop-email-verify" });
  const resend = useFetcher({ key: "shop-email-resend" });
  const cancel = useFetcher({ key: "shop-email-cancel" });
  // Restart the countdown after each resend went through (the server enforces it too).
  const [resends, setResends] = useState(0);
  const wasSubmitting = useRef(false);
  useEffect(() => {
    if (resend.state !== "idle") wasSubmitting.current = true;
    else if (wasSubmitting.current) {
      wasSubmitting.current = false;
      setResends((count) => count + 1);
    }
  }, [resend.state]);
  const left = useCountdown(resends > 0 ? RESEND_COOLDOWN_SECONDS : resendInSeconds, `${email}:${resends}`);
  const headingId = useId();

  return (
    <div className="shop-pending" aria-labelledby={headingId} role="group">
      <p id={headingId}>
        <span className="badge">Pending</span>{" "}
        <strong className="shop-email-address">
          <EmailText email={email} />
        </strong>
      </p>
      <p className="muted">Enter the code we sent to this address. It expires in 15 minutes.</p>
      <verify.Form method="post" action={SHOP_EMAIL_ACTION} className="shop-form">
        <ReturnField />
        <input type="hidden" name="email" value={email} />
        <Field label="Verification code" name="code" inputMode="numeric" autoComplete="one-time-code" required maxLength={12} />
        <SubmitButton intent="verify" pending={verify.state !== "idle"} pendingLabel="Verifying...">
          Verify Email
        </SubmitButton>
      </verify.Form>
      <div className="button-row">
        <resend.Form method="post" action={SHOP_EMAIL_ACTION}>
          <ReturnField />
          <input type="hidden" name="email" value={email} />
          <SubmitButton
            intent="resend"
            className="button-secondary"
            pending={resend.state !== "idle"}
            pendingLabel="Sending..."
            disabled={left > 0}
            aria-describedby={left > 0 ? `${headingId}-cooldown` : undefined}
          >
            Resend verification code
          </SubmitButton>
          {left > 0 ? (
            <span id={`${headingId}-cooldown`} className="muted shop-cooldown">
              {" "}
              Resend available in {left} s
            </span>
          ) : null}
        </resend.Form>
        <cancel.Form method="post" action={SHOP_EMAIL_ACTION}>
          <ReturnField />
          <input type="hidden" name="email" value={email} />
          <SubmitButton intent="cancel" className="button-danger" pending={cancel.state !== "idle"} pendingLabel="Canceling...">
            Cancel Verification
          </SubmitButton>
        </cancel.Form>
      </div>
    </div>
  );
}

/**
 * `resendInSeconds` (from shopEmailPanelData in the page loader) keeps the countdown right
 * after a reload; without it the countdown starts with the next resend.
 */
export function ShopEmailPanel({ user, resendInSeconds = 0 }: { user: ShopEmailPanelUser; resendInSeconds?: number }) {
  const link = useFetcher({ key: "shop-email-link" });
  const verified = user.kofiEmails.filter((item) => item.emailVerified);
  const pending = user.kofiEmails.find((item) => !item.emailVerified) ?? null;
  const headingId = useId();
  // A code was just mailed when a pending email appears while the page is open.
  const shownPending = useRef<string | null | undefined>(undefined);
  const [justMailed, setJustMailed] = useState<string | null>(null);
  useEffect(() => {
    const email = pending?.email ?? null;
    if (shownPending.current !== undefined && email && email !== shownPending.current) setJustMailed(email);
    shownPending.current = email;
  }, [pending?.email]);

  return (
    <section className="card account-panel shop-email-panel" aria-labelledby={headingId}>
      <h2 id={headingId}>Ko-fi Emails</h2>
      <p className="muted">Link the email you buy with on Ko-fi: your purchases unlock here, also the ones you made as a guest.</p>
      <h3 className="account-subheading">Linked emails</h3>
      {verified.length > 0 ? (
        <ul className="shop-email-list">
          {verified.map((item) => (
            <li key={item.email}>
              <span className="shop-email-address">
                <EmailText email={item.email} />
              </span>{" "}
              <span className="badge badge-verified">Verified</span>
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">No linked Ko-fi email yet.</p>
      )}
      {pending ? (
        <PendingEmail
          key={pending.email}
          email={pending.email}
          resendInSeconds={justMailed === pending.email ? Math.max(resendInSeconds, RESEND_COOLDOWN_SECONDS) : resendInSeconds}
        />
      ) : (
        <link.Form method="post" action={SHOP_EMAIL_ACTION} className="shop-form">
          <ReturnField />
          <Field label="Ko-fi email" name="email" type="email" autoComplete="email" required />
          <SubmitButton intent="link" pending={link.state !== "idle"} pendingLabel="Sending code...">
            Link Email
          </SubmitButton>
        </link.Form>
      )}
    </section>
  );
}
