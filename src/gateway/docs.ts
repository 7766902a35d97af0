/**
 * The API references through the one public origin: `GET /docs` lists the three services' references,
 * `GET /docs/<service>` is that service's reference (Scalar, script from this Worker's static assets) and
 * `GET /docs/<service>/openapi.json` is the service's OpenAPI document, fetched over its service binding.
 * The documents' paths are the edge's paths (the gateway forwards paths unchanged), so "try it" from a
 * reference on the gateway calls the gateway.
 */
import type { Hono } from "hono";
import { html } from "hono/html";
import {
  API_REFERENCE_SCRIPT,
  DOCS_HEADERS,
  firstSecurityScheme,
  type OpenApiDocument,
  referencePage,
  referenceScript,
} from "../lib/api-docs";
import { notFoundResponse } from "../lib/problem";
import type { Upstream } from "./routes";

type GatewayApp = Hono<{ Bindings: GatewayEnv; Variables: { requestId: string } }>;

const REFERENCES: Record<Upstream, { title: string; summary: string }> = {
  identity: {
    title: "Identity",
    summary: "Accounts, sign-in, sessions, second factors, organizations, members and invitations.",
  },
  content: {
    title: "Content",
    summary: "Posts, media, site settings and SEO, analytics, form leads, import and export by API key.",
  },
  sites: {
    title: "Sites",
    summary: "Site registry, settings, applets, themes, legal pages, health, domains, operator console.",
  },
};

const isUpstream = (name: string): name is Upstream => Object.hasOwn(REFERENCES, name);

function binding(env: GatewayEnv, upstream: Upstream): Fetcher {
  return upstream === "identity" ? env.IDENTITY : upstream === "content" ? env.CONTENT : env.SITES;
}

async function indexPage(): Promise<Response> {
  const items = (Object.keys(REFERENCES) as Upstream[]).map(
    (name) =>
      html`<li><a href="/docs/${name}">${REFERENCES[name].title} API</a> <span>${REFERENCES[name].summary}</span>
<a class="spec" href="/docs/${name}/openapi.json">OpenAPI document</a></li>`,
  );
  const page = await html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference · Site Platform</title>
<style>
body { font: 16px/1.5 system-ui, sans-serif; max-width: 44rem; margin: 3rem auto; padding: 0 1rem; color: #1b1b1f; }
li { margin: 0 0 1rem; } li a:first-child { font-weight: 600; } span { display: block; color: #555; }
.spec { font-size: 0.875rem; }
</style>
</head>
<body>
<main>
<h1>Site Platform API reference</h1>
<p>Every path below is served on this origin. Dashboard routes take a Bearer access token; content's
<code>/v1/*</code> takes an API key (<code>ck_</code> secret, <code>pk_</code> public).</p>
<ul>
${items}
</ul>
</main>
</body>
</html>`;
  return new Response(page.toString(), { headers: DOCS_HEADERS });
}

/** The service's OpenAPI document, or null when the service does not hand it out. */
async function fetchDocument(env: GatewayEnv, upstream: Upstream): Promise<OpenApiDocument | null> {
  const res = await binding(env, upstream).fetch("https://internal/openapi.json");
  if (!res.ok) return null;
  return (await res.json()) as OpenApiDocument;
}

/**
 * The service's OpenAPI document as the service serves it, its `servers` naming this gateway (the one
 * public origin, where every path of the document is routed), so code samples are absolute.
 */
async function serviceDocument(env: GatewayEnv, upstream: Upstream, origin: string): Promise<Response> {
  const doc = await fetchDocument(env, upstream);
  if (!doc) return notFoundResponse();
  const servers = [{ url: origin, description: "The gateway: the platform's one public origin" }];
  return new Response(JSON.stringify({ ...doc, servers }), {
    headers: {
      "content-type": "application/json",
      "cache-control": "no-cache",
      "x-content-type-options": "nosniff",
    },
  });
}

export function registerDocs(app: GatewayApp) {
  app.get("/docs", () => indexPage());
  app.get(API_REFERENCE_SCRIPT, (c) => referenceScript(c.env.ASSETS, c.req.raw));
  app.get("/docs/:service", async (c) => {
    const name = c.req.param("service");
    if (!isUpstream(name)) return notFoundResponse();
    const doc = await fetchDocument(c.env, name);
    const scheme = doc ? firstSecurityScheme(doc) : null;
    return referencePage(REFERENCES[name].title, `/docs/${name}/openapi.json`, scheme);
  });
  app.get("/docs/:service/openapi.json", (c) => {
    const name = c.req.param("service");
    if (!isUpstream(name)) return notFoundResponse();
    return serviceDocument(c.env, name, new URL(c.req.url).origin);
  });
}
