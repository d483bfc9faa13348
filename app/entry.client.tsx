import { RemixBrowser } from "@remix-run/react";
import { startTransition, StrictMode } from "react";
import { hydrateRoot } from "react-dom/client";
import { documentRequestInPage, noteDataRequestIds, RequestIdContext } from "~/components/error-page";

// Read before hydration: the error page the server rendered shows its request's id.
const documentRequest = documentRequestInPage();
// An error page reached without a reload shows the id of the `.data` answer that failed.
noteDataRequestIds(window);

startTransition(() => {
  hydrateRoot(
    document,
    <StrictMode>
      <RequestIdContext.Provider value={documentRequest}>
        <RemixBrowser />
      </RequestIdContext.Provider>
    </StrictMode>,
  );
});
