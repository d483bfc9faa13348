// The post editor's Requirements and Tags (docs/product.md#requirements, #tags): plain forms that
// post to the library's action (with or without JavaScript; with it, in place), read by the same
// schemas as PUT /api/admin/posts/{id}/requirements and /tags.
import { useFetcher } from "@remix-run/react";
import { FoldingSection } from "~/components/folding-section";
import type { AdminRequirement } from "~/models/post-requirements.server";

/** Blank rows offered under the saved ones. */
const BLANK_ROWS = 2;

/** One `<datalist>` of every post for the requirement fields, drawn once per page. */
export function PostChoices({ posts }: { posts: readonly { postId: string; title: string }[] }) {
  return (
    <datalist id="post-choices">
      {posts.map((post) => (
        <option key={post.postId} value={post.postId}>
          {post.title}
        </option>
      ))}
    </datalist>
  );
}

export function RequirementsSection({ postId, requirements, back }: { postId: string; requirements: readonly AdminRequirement[]; back: string }) {
  const save = useFetcher();
  const rows: (AdminRequirement | null)[] = [...requirements, ...Array.from({ length: BLANK_ROWS }, () => null)];
  const hint = requirements.length === 0 ? "None" : `${requirements.length} requirement${requirements.length === 1 ? "" : "s"}`;
  const field = (name: string, index: number) => `${name}-${postId}-${index}`;
  return (
    <FoldingSection title="Requirements" hint={hint} initiallyOpen={false} testId="post-requirements-section">
      <save.Form method="post" action="/library" preventScrollReset className="admin-fields">
        <input type="hidden" name="intent" value="requirements" />
        <input type="hidden" name="postId" value={postId} />
        <input type="hidden" name="back" value={back} />
        <p className="muted">
          Another post (its ID, and the oldest version that works, such as V2) or an outside item (a name and an https link). Leave a row blank to remove it.
        </p>
        {rows.map((row, index) => (
          <fieldset key={`${index}-${row?.post_id ?? row?.name ?? ""}`} className="requirement-row">
            <legend>Requirement {index + 1}</legend>
            <div className="field">
              <label htmlFor={field("req-post", index)}>Required post ID</label>
              <input id={field("req-post", index)} name={`req_post_${index}`} list="post-choices" defaultValue={row?.post_id ?? ""} />
              {row?.title ? <span className="muted">{row.title}</span> : null}
            </div>
            <div className="field">
              <label htmlFor={field("req-min", index)}>Minimum version</label>
              <input id={field("req-min", index)} name={`req_min_${index}`} defaultValue={row?.min_version ?? ""} placeholder="V2" />
            </div>
            <div className="field">
              <label htmlFor={field("req-name", index)}>Outside item name</label>
              <input id={field("req-name", index)} name={`req_name_${index}`} defaultValue={row?.name ?? ""} />
            </div>
            <div className="field">
              <label htmlFor={field("req-url", index)}>Outside item link</label>
              <input id={field("req-url", index)} name={`req_url_${index}`} type="url" defaultValue={row?.url ?? ""} placeholder="https://" />
            </div>
          </fieldset>
        ))}
        <button type="submit" className="button" disabled={save.state !== "idle"}>
          {save.state !== "idle" ? "Saving..." : "Save requirements"}
        </button>
      </save.Form>
    </FoldingSection>
  );
}

export function TagsSection({
  postId,
  checked,
  tags,
  back,
}: {
  postId: string;
  checked: readonly string[];
  tags: readonly { slug: string; name: string }[];
  back: string;
}) {
  const save = useFetcher();
  const hint =
    checked.length === 0
      ? "None"
      : tags
          .filter((tag) => checked.includes(tag.slug))
          .map((tag) => tag.name)
          .join(", ");
  return (
    <FoldingSection title="Tags" hint={hint} initiallyOpen={false} testId="post-tags-section">
      {tags.length === 0 ? (
        <p className="muted">
          No tags yet: define them on <a href="/admin/catalog">Tags and prices</a>.
        </p>
      ) : (
        <save.Form method="post" action="/library" preventScrollReset className="admin-fields">
          <input type="hidden" name="intent" value="tags" />
          <input type="hidden" name="postId" value={postId} />
          <input type="hidden" name="back" value={back} />
          <fieldset>
            <legend>Tags</legend>
            {tags.map((tag) => (
              <label key={tag.slug} className="checkbox">
                <input type="checkbox" name="tags" value={tag.slug} defaultChecked={checked.includes(tag.slug)} /> {tag.name}
              </label>
            ))}
          </fieldset>
          <button type="submit" className="button" disabled={save.state !== "idle"}>
            {save.state !== "idle" ? "Saving..." : "Save tags"}
          </button>
        </save.Form>
      )}
    </FoldingSection>
  );
}
