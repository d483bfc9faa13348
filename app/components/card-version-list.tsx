// The versions in a library card's "Version history" (card-version-history.tsx loads this module
// when the disclosure is opened; the server draws it with every card): each version's label,
// date, size, notes and changes, and for a post the viewer may download, a Download of each older
// version (a plain post to the library's download intent, with or without JavaScript).
import { VersionHistoryList } from "~/components/version-history";
import type { VersionView } from "~/models/post-version-history.server";
import { formatFileSize } from "~/utils/file-size";

export type CardVersionListProps = {
  postId: string;
  /** The post's visible versions, newest first. */
  versions: VersionView[];
  /** The viewer may download the post: older versions get their Download. */
  downloadable: boolean;
  back: string;
};

export function CardVersionList({ postId, versions, downloadable, back }: CardVersionListProps) {
  return (
    <VersionHistoryList
      versions={versions}
      showHash={false}
      renderActions={(version) =>
        downloadable && !version.current ? (
          <form method="post" action="/library">
            <input type="hidden" name="intent" value="download" />
            <input type="hidden" name="postId" value={postId} />
            <input type="hidden" name="versionId" value={version.id} />
            <input type="hidden" name="back" value={back} />
            <button type="submit" className="button-secondary">
              Download {version.label} ({formatFileSize(version.size)})
            </button>
          </form>
        ) : null
      }
    />
  );
}
