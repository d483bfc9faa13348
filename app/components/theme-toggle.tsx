import { useEffect, useState } from "react";

type Theme = "dark" | "light";

/** Dark/light switch; the choice is kept in localStorage under `theme` (default dark). */
export function ThemeToggle() {
  const [theme, setTheme] = useState<Theme>("dark");

  useEffect(() => {
    setTheme(document.documentElement.dataset.theme === "light" ? "light" : "dark");
  }, []);

  function toggle() {
    const next: Theme = theme === "dark" ? "light" : "dark";
    document.documentElement.dataset.theme = next;
    try {
      localStorage.setItem("theme", next);
    } catch {
      // Private mode: the theme still applies for this page.
    }
    setTheme(next);
  }

  return (
    <button
      type="button"
      className="theme-toggle"
      onClick={toggle}
      aria-label={theme === "dark" ? "Switch to light theme" : "Switch to dark theme"}
      aria-pressed={theme === "light"}
      data-testid="theme-toggle"
    >
      {/* Both glyphs, the document's theme shows one (app.css): the server's render and the page
          before hydration already show the icon of the theme the boot script applied. */}
      <span aria-hidden="true" className="theme-toggle-icon theme-toggle-to-light">
        ☀
      </span>
      <span aria-hidden="true" className="theme-toggle-icon theme-toggle-to-dark">
        ☾
      </span>
    </button>
  );
}
