/**
 * The hosted pages' stylesheet, served by this Worker (a strict CSP allows nothing else). The scripts
 * (`common.js`, then each page's own) are TypeScript under `browser/`, bundled by `npm run pages` into
 * `browser-bundle.json` (scripts.ts); `pages/index.ts` serves them all.
 */
export interface PageAsset {
  type: "text/css" | "text/javascript";
  body: string;
}

const CSS = `
:root { color-scheme: light dark; --fg: #1a1a1a; --bg: #fafafa; --muted: #555; --accent: #0b57d0; --err: #b3261e; --ok: #146c2e; --line: #c9c9c9; }
@media (prefers-color-scheme: dark) { :root { --fg: #eee; --bg: #151515; --muted: #b5b5b5; --accent: #8ab4f8; --err: #f2b8b5; --ok: #8fd19e; --line: #444; } }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
.skip { position: absolute; left: -999px; }
.skip:focus { left: 1rem; top: 1rem; background: var(--bg); padding: .5rem; z-index: 1; }
.brand { padding: 1rem 1.5rem; border-bottom: 1px solid var(--line); font-weight: 600; }
.brand a { color: inherit; text-decoration: none; }
main { max-width: 34rem; margin: 2rem auto; padding: 0 1.5rem; }
main.wide { max-width: 52rem; }
h1 { font-size: 1.6rem; margin: 0 0 1rem; }
h2 { font-size: 1.2rem; margin: 2rem 0 .5rem; }
.field { margin: 0 0 1rem; display: flex; flex-direction: column; gap: .25rem; }
label { font-weight: 600; }
.hint { margin: 0; color: var(--muted); font-size: .9rem; }
input[type=text], input[type=email], input[type=password], input[type=tel], input:not([type]) { font: inherit; padding: .6rem .7rem; border: 1px solid var(--line); border-radius: .4rem; background: transparent; color: inherit; }
input:focus-visible, button:focus-visible, a:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.check { display: flex; gap: .5rem; align-items: center; margin: 0 0 1rem; }
button { font: inherit; padding: .6rem 1.1rem; border-radius: .4rem; border: 1px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; }
button.secondary { background: transparent; color: var(--accent); }
button[disabled] { opacity: .6; cursor: progress; }
.status { min-height: 1.5rem; margin: 0 0 1rem; }
.status.error { color: var(--err); font-weight: 600; }
.status.ok { color: var(--ok); }
.links { margin-top: 1.5rem; display: flex; flex-wrap: wrap; gap: 1rem; }
a { color: var(--accent); }
[hidden] { display: none !important; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .4rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
.codes { font-family: ui-monospace, monospace; columns: 2; }
.actions { display: flex; gap: .5rem; flex-wrap: wrap; }
`;

export const COMMON_ASSETS: Record<string, PageAsset> = {
  "pages.css": { type: "text/css", body: CSS },
};
