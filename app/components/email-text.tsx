import { Fragment } from "react";

/**
 * An email address with break hints after "@", "-", "_", "+" and before each ".", so a narrow
 * screen wraps it between its parts instead of inside a word (CSS keeps breaking anywhere
 * only as a last resort, for a part longer than the line).
 */
export function EmailText({ email }: { email: string }) {
  const parts = email.split(/(?<=[@_+-])|(?=\.)/);
  return (
    <>
      {parts.map((part, index) => (
        <Fragment key={index}>
          {index > 0 ? <wbr /> : null}
          {part}
        </Fragment>
      ))}
    </>
  );
}
