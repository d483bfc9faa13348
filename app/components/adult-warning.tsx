// The 18+ warning (library-gate.tsx says when it shows): a dialog whose form posts to the
// library's action without JavaScript, and accepts in place with it. The library loads this
// module after its first view (on-demand.tsx); the post's page with the page.
import { Modal } from "~/components/modal";

export function AdultWarning({ back, onAccept }: { back: string; onAccept: () => void }) {
  return (
    <Modal title="Adult content warning" testId="nsfw-modal">
      <p>This library contains content for adults. The service is for users aged 18 or older.</p>
      <p>By continuing you confirm that you are 18 or older.</p>
      <form
        method="post"
        action="/library"
        onSubmit={(event) => {
          event.preventDefault();
          onAccept();
        }}
      >
        <input type="hidden" name="intent" value="accept-nsfw" />
        <input type="hidden" name="back" value={back} />
        <div className="button-row">
          <button type="submit" className="button">
            I am 18 or older
          </button>
          <a className="button-secondary" href="/">
            Leave
          </a>
        </div>
      </form>
    </Modal>
  );
}
