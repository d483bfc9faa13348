import { useEffect, useRef, useState } from "react";
import { countdownParts } from "~/utils/countdown";

/**
 * Time left until `endTime`, ticking every second. The first render uses the server's clock, so
 * the server-rendered text and the hydrated one match; then the browser's clock takes over.
 * At zero it shows 'Voting has ended.' and calls `onEnd` once.
 */
export function Countdown({ endTime, serverNow, onEnd }: { endTime: string; serverNow: string; onEnd?: () => void }) {
  const end = new Date(endTime).getTime();
  const [now, setNow] = useState(() => new Date(serverNow).getTime());
  const ended = now >= end;
  const onEndRef = useRef(onEnd);
  onEndRef.current = onEnd;
  const reported = useRef(false);

  useEffect(() => {
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [end]);

  useEffect(() => {
    if (!ended) {
      reported.current = false;
      return;
    }
    // Only a countdown that ran out in the browser reports the end; a page loaded after it does not.
    if (!reported.current && new Date(serverNow).getTime() < end) {
      reported.current = true;
      onEndRef.current?.();
    }
  }, [ended, end, serverNow]);

  if (ended) {
    return (
      <p className="countdown countdown-ended" data-testid="countdown" role="status">
        Voting has ended.
      </p>
    );
  }
  const parts = countdownParts(end, now);
  const units = [
    { value: parts.days, label: "days" },
    { value: parts.hours, label: "hours" },
    { value: parts.minutes, label: "minutes" },
    { value: parts.seconds, label: "seconds" },
  ];
  return (
    <div className="countdown" data-testid="countdown">
      <span className="visually-hidden">Time left to vote:</span>
      {units.map((unit) => (
        <span key={unit.label} className="countdown-unit" data-unit={unit.label}>
          <span className="countdown-value">{String(unit.value).padStart(2, "0")}</span>
          <span className="countdown-label">{unit.label}</span>
        </span>
      ))}
    </div>
  );
}
