/**
 * The API reference pages (`/docs`): Scalar's standalone browser bundle, served by the Worker itself from
 * the npm package `@scalar/api-reference` (Workers static assets, binding `ASSETS`, `run_worker_first`), so
 * a page needs nothing from a CDN and works offline. The page sends a strict Content Security Policy:
 * scripts only from this origin and nothing inline (the configuration travels in data attributes of an
 * inert `application/json` element), calls only to this origin, no fonts from elsewhere (Scalar's remote
 * default fonts are off). Styles allow 'unsafe-inline': Scalar injects its stylesheet and theme as `<style>`
 * elements at run time and sets inline `style` attributes; no script can be injected that way.
 */
import { html } from "hono/html";

/** Where every Worker serves the reference's script (same path on each service and on the gateway). */
export const API_REFERENCE_SCRIPT = "/docs/assets/api-reference.js";
/** The file in the assets directory (`node_modules/@scalar/api-reference/dist/browser`). */
const BUNDLE_FILE = "/standalone.js";

/** Scalar's configuration: nothing that reaches a host other than this one. */
const REFERENCE_CONFIG = {
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  hideClientButton: false,
  showDeveloperTools: "never",
};

export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join("; ");

export const DOCS_HEADERS: Record<string, string> = {
  "content-security-policy": DOCS_CSP,
  "content-type": "text/html; charset=utf-8",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "cache-control": "no-cache",
};

/** The reference of one OpenAPI document (`specUrl`, same origin) as a page. */
export async function referencePage(title: string, specUrl: string): Promise<Response> {
  const page = await html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} API reference</title>
</head>
<body>
<script id="api-reference" type="application/json" data-url="${specUrl}" data-configuration="${JSON.stringify(REFERENCE_CONFIG)}"></script>
<script src="${API_REFERENCE_SCRIPT}"></script>
</body>
</html>`;
  return new Response(page.toString(), { headers: DOCS_HEADERS });
}

/**
 * The reference's script from the Worker's static assets. Only this one file of the directory is ever
 * served (the Worker runs first on every path), with a JavaScript type whatever the asset server says.
 */
export async function referenceScript(assets: Fetcher, request: Request): Promise<Response> {
  const url = new URL(BUNDLE_FILE, request.url);
  const conditional = request.headers.get("if-none-match");
  const res = await assets.fetch(url, { headers: conditional ? { "if-none-match": conditional } : {} });
  const headers = new Headers(res.headers);
  headers.set("content-type", "text/javascript; charset=utf-8");
  headers.set("x-content-type-options", "nosniff");
  headers.set("cache-control", "public, max-age=3600");
  return new Response(res.body, { status: res.status, headers });
}
