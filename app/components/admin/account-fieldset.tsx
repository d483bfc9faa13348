// The editor's account fields: name, email, tier and the three flags.
import type { Draft, DraftUpdate, EditorTier } from "~/components/admin/use-user-draft";

export function AccountFieldset({ idPrefix, draft, update, tiers }: { idPrefix: string; draft: Draft; update: DraftUpdate; tiers: EditorTier[] }) {
  return (
    <fieldset className="admin-fieldset">
      <legend>Account</legend>
      <div className="field">
        <label htmlFor={`${idPrefix}-name`}>Full name</label>
        <input id={`${idPrefix}-name`} type="text" name="fullName" value={draft.fullName} onChange={(e) => update("fullName", e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor={`${idPrefix}-email`}>Email</label>
        <input id={`${idPrefix}-email`} type="email" name="email" value={draft.email} onChange={(e) => update("email", e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor={`${idPrefix}-tier`}>Current tier</label>
        <select id={`${idPrefix}-tier`} name="current_tier" value={draft.current_tier} onChange={(e) => update("current_tier", e.target.value)}>
          <option value="">None</option>
          {tiers.map((tier) => (
            <option key={tier.tierId} value={tier.tierId}>
              {tier.title}
            </option>
          ))}
          {draft.current_tier && !tiers.some((tier) => tier.tierId === draft.current_tier) ? (
            <option value={draft.current_tier}>Unknown Tier ({draft.current_tier})</option>
          ) : null}
        </select>
      </div>
      {(
        [
          ["restricted", "Restricted"],
          ["canBeAdmin", "Can be admin"],
          ["isAdmin", "Is admin"],
        ] as const
      ).map(([flag, label]) => (
        <label key={flag} className="checkbox">
          <input type="checkbox" name={flag} value="true" checked={draft[flag]} onChange={(e) => update(flag, e.target.checked)} />
          {label}
        </label>
      ))}
    </fieldset>
  );
}
