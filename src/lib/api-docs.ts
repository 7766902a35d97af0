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

type SecurityRequirement = Record<string, string[]>;

/** The parts of an OpenAPI document the finisher reads and writes. */
export interface OpenApiDocument {
  paths?: Record<string, Record<string, { security?: SecurityRequirement[]; tags?: string[] }>>;
  components?: { securitySchemes?: Record<string, unknown> };
  tags?: { name: string; description?: string }[];
  servers?: { url: string; description?: string }[];
  [key: string]: unknown;
}

/**
 * What a service's routes leave unsaid in its document: the security of an operation that declares none
 * (an explicit `[]` is a public operation) and its tag (the spec section it belongs to). A route's own
 * declaration always wins.
 */
export interface DocumentRules {
  security: (path: string, method: string) => SecurityRequirement[];
  tag: (path: string) => string;
  /** Tags in the order the reference lists them, with a line each. */
  tags: { name: string; description?: string }[];
}

const METHODS = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"]);

/**
 * Every operation with its security and at least one tag (issue 23 item 4), the document's tag list in
 * order, and `servers` naming `origin` so the reference's code samples are absolute.
 */
export function finishDocument<T extends OpenApiDocument>(
  doc: T,
  rules: DocumentRules,
  origin: string,
  description: string,
): T {
  const used = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item)) {
      if (!METHODS.has(method)) continue;
      op.security ??= rules.security(path, method);
      if (!op.tags || op.tags.length === 0) op.tags = [rules.tag(path)];
      for (const t of op.tags) used.add(t);
    }
  }
  const listed = rules.tags.filter((t) => used.has(t.name));
  const rest = [...used].filter((name) => !listed.some((t) => t.name === name)).map((name) => ({ name }));
  return { ...doc, tags: [...listed, ...rest], servers: [{ url: origin, description }] };
}

/** The first security scheme a document declares: "Try it" preselects it (none when there is none). */
export function firstSecurityScheme(doc: OpenApiDocument): string | null {
  return Object.keys(doc.components?.securitySchemes ?? {})[0] ?? null;
}

/**
 * The reference of one OpenAPI document (`specUrl`, same origin) as a page. `preferredScheme`: the
 * document's first security scheme, preselected for "Try it" so the reference asks for that credential
 * instead of sending an empty `Authorization: Bearer ` (which would override a `?key=`); none when null.
 */
export async function referencePage(
  title: string,
  specUrl: string,
  preferredScheme: string | null = null,
): Promise<Response> {
  const configuration = {
    ...REFERENCE_CONFIG,
    ...(preferredScheme ? { authentication: { preferredSecurityScheme: preferredScheme } } : {}),
  };
  const page = await html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} API reference</title>
</head>
<body>
<script id="api-reference" type="application/json" data-url="${specUrl}" data-configuration="${JSON.stringify(configuration)}"></script>
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
