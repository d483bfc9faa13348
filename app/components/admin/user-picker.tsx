// A user field for admin forms: a plain text input (email, name, number or id) that the server
// resolves, so it works without JavaScript. With JavaScript, typing lists the matching accounts
// from the admin user search (GET /api/admin/users) as the input's suggestions.
import { useEffect, useId, useRef, useState } from "react";

type Suggestion = { value: string; label: string };
type UsersAnswer = { users: { id: string; number: number; email: string | null; fullName: string | null }[] };

const SUGGESTIONS = 8;
const TYPING_PAUSE_MS = 200;

export function UserPickerInput({
  id,
  name,
  label,
  defaultValue,
  describedBy,
}: {
  id: string;
  name: string;
  label: string;
  defaultValue: string;
  describedBy?: string;
}) {
  const listId = useId();
  const [query, setQuery] = useState("");
  const [suggestions, setSuggestions] = useState<Suggestion[]>([]);
  const latest = useRef("");

  useEffect(() => {
    const search = query.trim();
    latest.current = search;
    if (search.length < 2) {
      setSuggestions([]);
      return;
    }
    const timer = window.setTimeout(() => {
      fetch(`/api/admin/users?${new URLSearchParams({ search, pageSize: String(SUGGESTIONS) }).toString()}`, { headers: { Accept: "application/json" } })
        .then((response) => (response.ok ? (response.json() as Promise<UsersAnswer>) : null))
        .then((answer) => {
          // An answer for an older query is dropped: the admin kept typing.
          if (!answer || latest.current !== search) return;
          setSuggestions(
            answer.users.map((user) => ({
              value: user.email ?? `#${user.number}`,
              label: [user.fullName, user.email, `No. ${user.number}`].filter(Boolean).join(" · "),
            })),
          );
        })
        .catch(() => setSuggestions([]));
    }, TYPING_PAUSE_MS);
    return () => window.clearTimeout(timer);
  }, [query]);

  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        name={name}
        defaultValue={defaultValue}
        list={listId}
        required
        autoComplete="off"
        aria-describedby={describedBy}
        onChange={(event) => setQuery(event.currentTarget.value)}
      />
      <datalist id={listId} data-testid="user-suggestions">
        {suggestions.map((suggestion) => (
          <option key={suggestion.value} value={suggestion.value} label={suggestion.label} />
        ))}
      </datalist>
    </div>
  );
}
