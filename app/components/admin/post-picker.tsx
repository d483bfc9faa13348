// Unlocked content by post title: the granted posts first (with Remove), then every post as a
// checkbox, narrowed by a filter. The checkboxes are the form's `unlocked_content` fields.
import { useId, useState } from "react";
import type { EditorPost } from "~/components/admin/use-user-draft";

export function PostPicker({ posts, selected, onChange }: { posts: EditorPost[]; selected: string[]; onChange: (ids: string[]) => void }) {
  const [filter, setFilter] = useState("");
  const filterId = useId();
  const selectedSet = new Set(selected);
  const byId = new Map(posts.map((post) => [post.postId, post]));
  const needle = filter.trim().toLowerCase();
  const shown = needle ? posts.filter((post) => post.title.toLowerCase().includes(needle)) : posts;
  const shownIds = new Set(shown.map((post) => post.postId));

  function toggle(postId: string, on: boolean) {
    onChange(on ? [...selected.filter((id) => id !== postId), postId] : selected.filter((id) => id !== postId));
  }

  return (
    <fieldset className="admin-fieldset admin-picker">
      <legend>Unlocked content</legend>
      {selected.length === 0 ? (
        <p className="muted">No unlocked content.</p>
      ) : (
        <ul className="admin-chips" aria-label="Unlocked posts">
          {selected.map((postId) => (
            <li key={postId} className="admin-chip">
              <span>{byId.get(postId)?.title ?? `Unknown post (${postId})`}</span>
              <button
                type="button"
                className="admin-chip-remove"
                aria-label={`Remove ${byId.get(postId)?.title ?? postId}`}
                onClick={() => toggle(postId, false)}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className="field">
        <label htmlFor={filterId}>Find a post to unlock</label>
        <input id={filterId} type="search" value={filter} onChange={(e) => setFilter(e.target.value)} placeholder="Post title" autoComplete="off" />
      </div>
      <ul className="admin-picker-list" aria-label="Posts">
        {shown.map((post) => (
          <li key={post.postId}>
            <label className="checkbox">
              <input
                type="checkbox"
                name="unlocked_content"
                value={post.postId}
                checked={selectedSet.has(post.postId)}
                onChange={(e) => toggle(post.postId, e.target.checked)}
              />
              {post.title}
              {!post.paid_content ? <span className="badge">Free</span> : null}
              {!post.enabled ? <span className="badge">Disabled</span> : null}
            </label>
          </li>
        ))}
        {shown.length === 0 ? <li className="muted">No post matches.</li> : null}
      </ul>
      {/* Posts hidden by the filter stay granted when the form is saved. */}
      {selected
        .filter((postId) => !shownIds.has(postId))
        .map((postId) => (
          <input key={postId} type="hidden" name="unlocked_content" value={postId} />
        ))}
    </fieldset>
  );
}
