// What the /admin action answers to each of its forms; the page's tools read their own intent.
import type { PostedEditorFields } from "~/utils/admin-schemas";

/** What a leak-trace stamp's tag shows (app/utils/trace-stamp.server.ts). */
export type TraceStampVerdict = "verified" | "untagged" | "forged";

export type CodeSearchData = {
  number: number;
  stamp: Exclude<TraceStampVerdict, "forged">;
  /** The number's account: the page links its user editor and shows its email. */
  user: { id: string; email: string | null; username: string };
  downloads: { _id: string; postId: string; postTitle: string; username: string; date: string; version: string; versionId: string | null }[];
};

export type ImportReportData = { imported: number; duplicates: number; rejected: { row: number; reason: string }[] };

export type CodeSearchValues = { code: string; keyword: string };

/** A leaked ZIP dropped on the code search: its name, the leak-trace number read from its comment and what its tag shows. */
export type TracedFile = { fileName: string; number: number; stamp: TraceStampVerdict };

export type AdminActionData =
  | { intent: "search-by-code"; error: string; result?: undefined; values?: CodeSearchValues }
  | { intent: "search-by-code"; result: CodeSearchData; error?: undefined; values?: CodeSearchValues }
  | { intent: "trace-zip"; error: string; result?: undefined; traced?: TracedFile }
  | { intent: "trace-zip"; result: CodeSearchData; error?: undefined; traced: TracedFile }
  | { intent: "import-purchases"; error: string; details?: string; report?: undefined }
  | { intent: "import-purchases"; report: ImportReportData; error?: undefined }
  | { intent: "save-user"; error: string }
  | { intent: "add-shop-email" | "verify-shop-email" | "remove-shop-email"; error: string; message?: undefined; posted?: undefined }
  /** A shop email changed by a plain post of the editor form: the editor is drawn again with `posted`, unsaved. */
  | { intent: "add-shop-email" | "verify-shop-email" | "remove-shop-email"; message: string; posted: PostedEditorFields; error?: undefined }
  | { intent: "force-interval"; error?: string; details?: string; summary?: unknown; message?: string }
  | { intent: "unlock-objects"; error?: string; message?: string }
  | { intent: string; error: string };
