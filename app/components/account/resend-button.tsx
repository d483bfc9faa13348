import { useEffect, useState } from "react";
import { SubmitButton } from "~/components/form";

/**
 * "Resend verification code", disabled while the 60 s cooldown runs; the remaining seconds
 * count down on the page (the server refuses early resends anyway).
 */
export function AccountResendButton({ seconds }: { seconds: number }) {
  const [left, setLeft] = useState(seconds);
  useEffect(() => {
    setLeft(seconds);
    if (seconds <= 0) return;
    const startedAt = Date.now();
    const timer = setInterval(() => {
      const remaining = Math.max(0, seconds - Math.floor((Date.now() - startedAt) / 1000));
      setLeft(remaining);
      if (remaining === 0) clearInterval(timer);
    }, 250);
    return () => clearInterval(timer);
  }, [seconds]);
  return (
    <span className="resend">
      <SubmitButton intent="resend" className="button-secondary" pendingLabel="Sending..." disabled={left > 0} formNoValidate>
        Resend verification code
      </SubmitButton>
      {left > 0 ? (
        <span className="muted" data-testid="resend-countdown" aria-live="polite">
          {" "}
          Available in {left} s
        </span>
      ) : null}
    </span>
  );
}
