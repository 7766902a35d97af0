/**
 * The hosted pages' scripts by asset name (`/auth/assets/<name>`): `common.js` (`window.Auth`) and one per
 * page. Their source is TypeScript under `browser/` (typechecked by tsconfig.browser.json, with DOM libs);
 * `npm run pages` bundles it with esbuild into `browser-bundle.json`, committed, which every runtime reads
 * by this plain import. test/identity/pages-bundle.unit.test.ts fails when the file is stale.
 */
import type { PageAsset } from "./assets";
import bundle from "./browser-bundle.json";

export const SCRIPT_ASSETS: Record<string, PageAsset> = Object.fromEntries(
  Object.entries(bundle as Record<string, string>).map(([name, body]) => [
    name,
    { type: "text/javascript", body },
  ]),
);
