// Parts of a page whose code the browser loads when they are needed (a disclosure opened, a
// dialog asked for), not with the page: the library's first load stays small
// (docs/benchmarks.md#first-load-javascript-benchfirst-load-jsts). The server always draws them
// with their real component, so a page without JavaScript shows and does the same.
import { useCallback, useEffect, useRef, useState, useSyncExternalStore, type ComponentType, type HTMLAttributes, type SyntheticEvent } from "react";

/** A component loaded on demand: known at once on the server, after `load()` in the browser. */
export type OnDemand<P extends object> = {
  /** The component, once its module is here (on the server: from the start). */
  loaded: ComponentType<P> | null;
  /** Loads the module (once; again after a failure). */
  load: () => Promise<ComponentType<P>>;
};

/**
 * `server` is the component as the server build imports it statically (`import.meta.env.SSR ?
 * Part : null`, so the browser build leaves the static import out); `load` imports its module.
 */
export function onDemand<P extends object>(server: ComponentType<P> | null, load: () => Promise<ComponentType<P>>): OnDemand<P> {
  let pending: Promise<ComponentType<P>> | null = null;
  const part: OnDemand<P> = {
    loaded: server,
    load: () =>
      (pending ??= load().then(
        (component) => (part.loaded = component),
        (error: unknown) => {
          pending = null;
          throw error;
        },
      )),
  };
  return part;
}

/**
 * The part's component once `wanted` (or loaded before): null until its module is here, and
 * `failed` when loading it failed (a new `wanted` tries again).
 */
export function useOnDemand<P extends object>(part: OnDemand<P>, wanted: boolean): { Component: ComponentType<P> | null; failed: boolean } {
  const [Component, setComponent] = useState<ComponentType<P> | null>(() => part.loaded);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    if (!wanted || Component) return;
    let live = true;
    setFailed(false);
    part.load().then(
      (component) => live && setComponent(() => component),
      () => live && setFailed(true),
    );
    return () => {
      live = false;
    };
  }, [part, wanted, Component]);
  return { Component, failed };
}

const subscribeToNothing = () => () => {};

/**
 * True while this element is drawn from the server's HTML (on the server, and when the browser
 * hydrates it), false when the browser draws it itself (a later navigation): React answers the
 * server's snapshot during hydration.
 */
function useDrawnByServer(): boolean {
  const now = useSyncExternalStore(
    subscribeToNothing,
    () => false,
    () => true,
  );
  // The first answer is the one that counts: after hydration React answers the browser's.
  return useState(now)[0];
}

function sameProps(a: object, b: object): boolean {
  const keysA = Object.keys(a);
  return keysA.length === Object.keys(b).length && keysA.every((key) => Object.is((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}

/**
 * A part of the page the server draws in full but whose code the browser loads only when it is
 * `wanted` (say, its disclosure is opened). Until then the browser keeps the server's HTML as it
 * is (React does not touch an element's inner HTML when hydrating it), so the part shows and works
 * as without JavaScript: plain links and forms. Once loaded, the real component draws it. Props
 * that change from those the server drew with make it wanted too, so a stale copy is replaced.
 * Drawn first by the browser (after a navigation) the part is empty until wanted.
 */
export function ServerDrawn<P extends object>({
  part,
  props,
  wanted,
  as: Holder = "div",
  ...holder
}: {
  part: OnDemand<P>;
  props: P;
  wanted: boolean;
  /** The element that holds the part: a `div` (or the `ul` of the part's `li`s). */
  as?: "div" | "ul";
} & HTMLAttributes<HTMLElement> & { [data: `data-${string}`]: string | number | undefined }) {
  const drawnByServer = useDrawnByServer();
  const drawnWith = useRef(props);
  const { Component } = useOnDemand(part, wanted || !sameProps(drawnWith.current, props));
  if (Component) {
    return (
      <Holder {...holder}>
        <Component {...props} />
      </Holder>
    );
  }
  return drawnByServer ? <Holder {...holder} dangerouslySetInnerHTML={{ __html: "" }} suppressHydrationWarning /> : <Holder {...holder} />;
}

/**
 * A `<details>` element's open state, for loading its content when it is opened: `ref` and
 * `onToggle` go on the element; one opened before the page's scripts ran counts too.
 */
export function useDisclosure(initiallyOpen: boolean) {
  const ref = useRef<HTMLDetailsElement>(null);
  const [open, setOpen] = useState(initiallyOpen);
  useEffect(() => {
    if (ref.current?.open) setOpen(true);
  }, []);
  const onToggle = useCallback((event: SyntheticEvent<HTMLDetailsElement>) => setOpen(event.currentTarget.open), []);
  return { ref, open, onToggle };
}
