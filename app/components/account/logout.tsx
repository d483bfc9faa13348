import { Form } from "@remix-run/react";
import { SubmitButton } from "~/components/form";

/** Logout as a button of the surrounding /login form (its intent decides). */
export function LogoutSubmit() {
  return (
    <SubmitButton intent="logout" className="button-secondary" pendingLabel="Logging out..." formNoValidate>
      Logout
    </SubmitButton>
  );
}

export function LogoutButton() {
  return (
    <Form method="post" action="/login">
      <LogoutSubmit />
    </Form>
  );
}
