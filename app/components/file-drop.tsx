// A file picker with a drop zone. It stays a real <input type="file"> inside its form, so it posts
// with the form and works without JavaScript (then the native control shows, styled); with
// JavaScript the input covers the zone invisibly, a dropped file is put into it, and the zone
// names the chosen file and its size.
import { forwardRef, useCallback, useEffect, useImperativeHandle, useRef, useState } from "react";
import { formatFileSize } from "~/utils/file-size";

type FileDropProps = {
  id: string;
  name: string;
  label: string;
  accept?: string;
  /** Ids of hints elsewhere on the page that describe the input. */
  describedBy?: string;
  onChange?: (file: File | null) => void;
};

function UploadIcon() {
  return (
    <svg className="file-drop-icon" viewBox="0 0 24 24" width="28" height="28" aria-hidden="true" focusable="false">
      <path
        fill="none"
        stroke="currentColor"
        strokeWidth="1.8"
        strokeLinecap="round"
        strokeLinejoin="round"
        d="M12 15V4m0 0-4 4m4-4 4 4M5 14v4a2 2 0 0 0 2 2h10a2 2 0 0 0 2-2v-4"
      />
    </svg>
  );
}

export const FileDrop = forwardRef<HTMLInputElement, FileDropProps>(function FileDrop({ id, name, label, accept, describedBy, onChange }, ref) {
  const inputRef = useRef<HTMLInputElement>(null);
  useImperativeHandle(ref, () => inputRef.current as HTMLInputElement);
  const [enhanced, setEnhanced] = useState(false);
  const [dragging, setDragging] = useState(false);
  const [chosen, setChosen] = useState<File | null>(null);
  const chosenId = `${id}-chosen`;

  const sync = useCallback(() => {
    const file = inputRef.current?.files?.[0] ?? null;
    setChosen(file);
    onChange?.(file);
  }, [onChange]);

  useEffect(() => {
    setEnhanced(true);
    // A form reset (after an upload) empties the input without a change event.
    const form = inputRef.current?.form;
    const onReset = () => setTimeout(sync, 0);
    form?.addEventListener("reset", onReset);
    return () => form?.removeEventListener("reset", onReset);
  }, [sync]);

  return (
    <div className="field file-drop">
      <label htmlFor={id}>{label}</label>
      <div
        className={`file-drop-zone${enhanced ? " is-enhanced" : ""}${dragging ? " is-dragging" : ""}`}
        data-testid="file-drop"
        onDragEnter={(event) => {
          event.preventDefault();
          setDragging(true);
        }}
        onDragOver={(event) => {
          event.preventDefault();
          event.dataTransfer.dropEffect = "copy";
        }}
        onDragLeave={(event) => {
          if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setDragging(false);
        }}
        onDrop={(event) => {
          event.preventDefault();
          setDragging(false);
          const input = inputRef.current;
          const file = event.dataTransfer.files[0];
          // Only the first file: the input is not `multiple`. A file of another type goes in too:
          // the form's own check names the problem, as it does for a file chosen without JavaScript.
          if (!input || !file) return;
          const transfer = new DataTransfer();
          transfer.items.add(file);
          input.files = transfer.files;
          input.dispatchEvent(new Event("change", { bubbles: true }));
        }}
      >
        <input
          ref={inputRef}
          id={id}
          name={name}
          type="file"
          accept={accept}
          aria-describedby={[describedBy, enhanced ? chosenId : null].filter(Boolean).join(" ") || undefined}
          onChange={sync}
        />
        <UploadIcon />
        <span className="file-drop-text">
          {chosen ? (
            <span id={chosenId} className="file-drop-chosen" data-testid="file-drop-chosen">
              {chosen.name} · {formatFileSize(chosen.size)}
            </span>
          ) : (
            <>
              <span className="file-drop-action">Choose a file or drop it here</span>
              <span id={chosenId}>No file chosen</span>
            </>
          )}
        </span>
      </div>
    </div>
  );
});
