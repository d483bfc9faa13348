// The most downloaded posts of the range: downloads, a small line of downloads per day, and how
// many of the post's owners have its current version (a native meter, named for screen readers).
export type TopPostView = {
  rank: number;
  postId: string;
  title: string;
  version: string;
  downloads: number;
  owners: number;
  ownersOnCurrentVersion: number;
  /** Path of the downloads-per-day line in a 120 x 28 box. */
  sparkline: string;
  peak: number;
};

export function TopPostsList({ posts }: { posts: TopPostView[] }) {
  if (posts.length === 0) return <p>No downloads in this range.</p>;
  return (
    <ol className="insights-top-posts">
      {posts.map((post) => {
        const share = post.owners > 0 ? Math.round((post.ownersOnCurrentVersion / post.owners) * 100) : 0;
        return (
          <li key={post.postId}>
            <div className="insights-top-title">
              <strong>{post.title}</strong>
              <span className="muted">
                {post.downloads.toLocaleString("en-US")} download{post.downloads === 1 ? "" : "s"}
              </span>
            </div>
            <svg className="insights-spark" viewBox="0 0 120 28" role="img" aria-label={`Downloads per day of ${post.title}, at most ${post.peak} a day`}>
              <path className="insights-line insights-s0" d={post.sparkline} />
            </svg>
            <label className="insights-adoption">
              <span>
                {post.ownersOnCurrentVersion} of {post.owners} owners have {post.version} ({share}%)
              </span>
              <meter min={0} max={Math.max(1, post.owners)} value={post.ownersOnCurrentVersion} />
            </label>
          </li>
        );
      })}
    </ol>
  );
}
