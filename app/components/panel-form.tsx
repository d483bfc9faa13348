import { Form, Link } from "@remix-run/react";
import { useEffect, useId, useState } from "react";
import { FileDrop } from "~/components/file-drop";
import { SubmitButton } from "~/components/form";
import { PANEL_IMAGE_ACCEPT } from "~/utils/form-hints";

export type PanelFormValues = { id?: string; title: string; description: string; link: string; index: string; imageUrl?: string | null };

/**
 * The Create Panel / Edit Panel form: one multipart POST with the fields and the image, so it
 * works without JavaScript; with it, the chosen image is previewed before saving.
 */
export function PanelForm({ values, error }: { values: PanelFormValues; error: string | null }) {
  const editing = Boolean(values.id);
  const headingId = useId();
  const [preview, setPreview] = useState<string | null>(null);

  // Release the preview's object URL when it is replaced or the form goes away.
  useEffect(() => () => (preview ? URL.revokeObjectURL(preview) : undefined), [preview]);

  const shownImage = preview ?? values.imageUrl ?? null;
  return (
    <section className="card panel-form" aria-labelledby={headingId}>
      <h2 id={headingId}>{editing ? "Edit Panel" : "Create Panel"}</h2>
      <Form method="post" encType="multipart/form-data" replace aria-describedby={error ? `${headingId}-error` : undefined}>
        {editing ? <input type="hidden" name="id" value={values.id} /> : null}
        {error ? (
          <p id={`${headingId}-error`} className="form-error" role="alert">
            {error}
          </p>
        ) : null}
        <div className="panel-form-grid">
          <div className="field">
            <label htmlFor={`${headingId}-title`}>Title</label>
            <input id={`${headingId}-title`} name="title" type="text" defaultValue={values.title} maxLength={200} />
          </div>
          <div className="field">
            <label htmlFor={`${headingId}-link`}>Link</label>
            <input id={`${headingId}-link`} name="link" type="text" inputMode="url" defaultValue={values.link} maxLength={2000} placeholder="https://" />
          </div>
          <div className="field panel-form-wide">
            <label htmlFor={`${headingId}-description`}>Description</label>
            <textarea id={`${headingId}-description`} name="description" rows={2} defaultValue={values.description} maxLength={1000} />
          </div>
          <div className="field">
            <label htmlFor={`${headingId}-index`}>Index</label>
            <input id={`${headingId}-index`} name="index" type="number" min={0} step={1} defaultValue={values.index} />
          </div>
          <FileDrop
            id={`${headingId}-image`}
            name="image"
            label="Image (png, jpg, jpeg)"
            accept={PANEL_IMAGE_ACCEPT}
            onChange={(file) => setPreview(file ? URL.createObjectURL(file) : null)}
          />
        </div>
        {shownImage ? (
          <figure className="panel-form-preview">
            <img src={shownImage} alt="Preview of the panel" data-testid="panel-image-preview" />
            <figcaption className="muted">{preview ? "New image (not saved yet)" : "Current image"}</figcaption>
          </figure>
        ) : null}
        <div className="button-row">
          <SubmitButton intent="save" pendingLabel={editing ? "Saving..." : "Creating..."}>
            {editing ? "Save Changes" : "Create Panel"}
          </SubmitButton>
          {editing ? (
            <Link to="/" className="button-secondary">
              Cancel
            </Link>
          ) : null}
        </div>
      </Form>
    </section>
  );
}
