// /login for a signed-in user: the verification step until the account is verified, then the
// account area's Settings tab: the welcome card, admin mode, the shop-email and support-platform
// panels and the password card, under the account tabs (the library's tabs come first).
import { Form, Link } from "@remix-run/react";
import { LogoutButton } from "~/components/account/logout";
import { ChangePasswordForm, SetPasswordForm } from "~/components/account/password-forms";
import { EmailVerification, ProviderWelcome } from "~/components/account/unverified-views";
import { EmailText } from "~/components/email-text";
import { SubmitButton } from "~/components/form";
import { LoginKofibuyOverlay } from "~/components/account/kofibuy-overlay";
import { ShopEmailPanel, type ShopEmailPanelUser } from "~/components/account/shop-email-panel";
import { SupportPlatformPanel, type SupportPlatformUser, type TierOption } from "~/components/account/support-platform-panel";
import { AccountArea } from "~/components/account/account-tabs";

export type AccountViewUser = ShopEmailPanelUser &
  SupportPlatformUser & {
    email: string | null;
    fullName: string | null;
    isAdmin: boolean;
    canBeAdmin: boolean;
    mailVerified: boolean;
    hasPassword: boolean;
    /** Choosing a username verifies this account (no code to enter). */
    providerAccount: boolean;
  };

export type AccountViewProps = {
  user: AccountViewUser;
  tiers: TierOption[];
  resendWait: number;
  shopEmailResendWait: number;
  /** Changes on every load so the resend countdown restarts after a resend. */
  loadedAt: number;
  /** The linked Discord account's roles and why (docs/product.md#discord-roles); null when off or not linked. */
  discordRoles?: { roleName: string; sentence: string }[] | null;
};

export function AccountView({ user, tiers, resendWait, shopEmailResendWait, loadedAt, discordRoles = null }: AccountViewProps) {
  if (!user.mailVerified) {
    return (
      <div className="login-page">
        {user.providerAccount ? <ProviderWelcome /> : <EmailVerification email={user.email ?? ""} resendWait={resendWait} loadedAt={loadedAt} />}
        <LoginKofibuyOverlay loggedIn />
      </div>
    );
  }
  return (
    <AccountArea current="settings">
      <div className="login-page account-page">
        <section className="card" aria-labelledby="welcome-title">
          <h1 id="welcome-title">Welcome{user.fullName ? `, ${user.fullName}` : ""}!</h1>
          <dl className="account-facts">
            <dt>Email</dt>
            <dd>{user.email ? <EmailText email={user.email} /> : "None"}</dd>
            <dt>Full Name</dt>
            <dd>{user.fullName ?? "None"}</dd>
            <dt>Is Admin</dt>
            <dd>{user.isAdmin ? "Yes" : "No"}</dd>
          </dl>
          <div className="button-row">
            {user.isAdmin && user.canBeAdmin ? <ToggleAdminButton label="Disable Admin" /> : null}
            {user.isAdmin ? (
              <Link className="button" to="/admin">
                To Admin Page
              </Link>
            ) : null}
            {user.canBeAdmin && !user.isAdmin ? <ToggleAdminButton label="Enable Admin" /> : null}
            <LogoutButton />
          </div>
        </section>
        {/* Anchor of the thank-you overlay's "Link Account". */}
        <div id="shop-email" tabIndex={-1}>
          <ShopEmailPanel user={user} resendInSeconds={shopEmailResendWait} />
        </div>
        <SupportPlatformPanel user={user} tiers={tiers} />
        {discordRoles ? <DiscordRolesCard roles={discordRoles} /> : null}
        {user.hasPassword ? <ChangePasswordForm /> : <SetPasswordForm />}
        <LoginKofibuyOverlay loggedIn />
      </div>
    </AccountArea>
  );
}

function ToggleAdminButton({ label }: { label: string }) {
  return (
    <Form method="post" action="/login">
      <SubmitButton intent="toggle-admin" className="button-secondary" pendingLabel="Saving...">
        {label}
      </SubmitButton>
    </Form>
  );
}

/** "You have @Gold because: …" for each mapped Discord role the linked account deserves. */
function DiscordRolesCard({ roles }: { roles: { roleName: string; sentence: string }[] }) {
  return (
    <section className="card" aria-labelledby="discord-roles-title" data-testid="discord-roles">
      <h2 id="discord-roles-title">Discord roles</h2>
      {roles.length === 0 ? (
        <p>Your linked Discord account has no role from this site for now.</p>
      ) : (
        <ul>
          {roles.map((role) => (
            <li key={role.roleName}>{role.sentence}</li>
          ))}
        </ul>
      )}
      <p className="muted">Roles follow your access: they change on Discord within a minute of a change here.</p>
    </section>
  );
}
