import type { MetaFunction } from "@remix-run/node";
import { json } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { listPanels, toApiPanel } from "~/models/panel.server";

export const meta: MetaFunction = () => [{ title: "Home · Creator Library" }];

export async function loader() {
  const panels = await listPanels();
  return json({ panels: panels.map(toApiPanel) });
}

export default function Home() {
  const { panels } = useLoaderData<typeof loader>();
  return (
    <>
      <h1 className="page-title">Welcome</h1>
      {panels.length === 0 ? (
        <p className="muted">Nothing here yet.</p>
      ) : (
        <ul className="grid" style={{ listStyle: "none", padding: 0 }} aria-label="Links">
          {panels.map((panel, position) => (
            <li key={panel._id}>
              <a className="home-panel" href={panel.link} target="_blank" rel="noopener noreferrer">
                {panel.imageUrl ? (
                  <img src={panel.imageUrl} alt="" width={640} height={360} loading={position < 3 ? "eager" : "lazy"} />
                ) : null}
                <span className="home-panel-text">
                  <h2>{panel.title}</h2>
                  {panel.description ? <p>{panel.description}</p> : null}
                </span>
              </a>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
