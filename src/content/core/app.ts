/** The content service's HTTP app: routes grouped as the spec's sections, probes, docs. */
import { createServiceApp, registerProblemSchema, serveApiDocs } from "../../lib/app";
import { handleError } from "../../lib/problem";
import { COLLECT_PATH, registerAnalyticsRoutes } from "../analytics/routes";
import { registerAuthorRoutes } from "../authors/routes";
import { registerBulkRoutes } from "../bulk/routes";
import { registerDashboardPostRoutes } from "../dashboard/posts-routes";
import { registerDashboardContentRoutes } from "../dashboard/site-content-routes";
import { registerFeedRoutes } from "../feeds/routes";
import { registerFormRoutes } from "../forms/routes";
import { isSiteFenced, siteMoving } from "../groups/fence";
import { registerApiKeyRoutes } from "../keys/routes";
import { registerLeadRoutes } from "../leads/routes";
import { registerMcpRoute } from "../mcp/routes";
import { registerMediaPublicRoute } from "../media/public-routes";
import { registerMediaRoutes } from "../media/routes";
import { registerPostListRoute } from "../posts/list-routes";
import { registerPostRoutes } from "../posts/routes";
import { registerPreviewRoutes } from "../preview/routes";
import { observeRequest } from "../probes/metrics";
import { registerProbeRoutes } from "../probes/routes";
import { registerRevisionRoutes } from "../revisions/routes";
import { registerSearchRoute } from "../search/routes";
import { registerSiteRoutes } from "../site/routes";
import { registerSiteSettingsRoutes } from "../site/settings-routes";
import { registerTaxonomyRoutes } from "../taxonomy/routes";
import { registerWebhookRoutes } from "../webhooks/routes";
import type { AppEnv } from "./bindings";
import { CONTENT_DOCUMENT_RULES, registerStaffSecurity } from "./openapi";
import { requestRouting } from "./routing";
import { contentServices } from "./services";

export const API_INFO = {
  title: "Content Publishing API",
  // The spec's reference version: all 27 of its operations are built (docs/not-built.md lists none).
  version: "1.0.0",
  description:
    "Posts, post SEO, media, post types, site data, site settings and SEO, analytics (collection by the public site, summary, views per post), form leads, import and export of one site, by API key (ck_ secret keys, pk_ public read keys); forms of a site (staff) and their anonymous submission route.",
};

export const app = createServiceApp<AppEnv>("content");
registerProblemSchema(app);
// A write a moving site's fence refused (issue 38, groups/fence.ts) is 503 SITE_MOVING with Retry-After.
app.onError((err, c) => {
  if (!isSiteFenced(err)) return handleError(err, c);
  return handleError(siteMoving(c.get("auth")?.siteId ?? c.req.param("site_id") ?? null), c);
});
// First: the reference's "Try it" preselects the first scheme, and a query key sends no Authorization
// header (an empty `Bearer ` would override a `?key=` the reader typed; issue 23 item 4).
app.openAPIRegistry.registerComponent("securitySchemes", "publicKeyQuery", {
  type: "apiKey",
  in: "query",
  name: "key",
  description:
    "Public read key in the query: `?key=pk_…` (for browsers and sendBeacon), accepted only from the key's allowlisted origins; never a ck_ key.",
});
app.openAPIRegistry.registerComponent("securitySchemes", "apiKey", {
  type: "http",
  scheme: "bearer",
  description: "Secret key: `Authorization: Bearer ck_…`. The security requirement lists the scopes needed.",
});
app.openAPIRegistry.registerComponent("securitySchemes", "publicReadKey", {
  type: "http",
  scheme: "bearer",
  description:
    "Public read key: `Authorization: Bearer pk_…` or `?key=pk_…`, accepted only from the key's allowlisted origins.",
});
registerStaffSecurity(app);

app.use("*", async (c, next) => {
  const started = performance.now();
  await next();
  const extra = c.get("responseHeaders");
  if (extra) {
    for (const [name, value] of Object.entries(extra)) {
      if (name === "vary") {
        const tokens = `${c.res.headers.get("vary") ?? ""},${value}`.split(",").map((v) => v.trim());
        c.res.headers.set("vary", [...new Set(tokens.filter((v) => v !== ""))].join(", "));
      } else if (!c.res.headers.has(name)) {
        c.res.headers.set(name, value);
      }
    }
  }
  observeRequest(c.req.routePath, c.req.method, c.res.status, (performance.now() - started) / 1000);
});

// Site groups (issue 38): `c.env.DB` is unrouted until the request's site is known; each route routes it
// (core/routing.ts), opening the request's D1 session on the site's group: `/v1/*` reads may be answered by
// its replicas, bookmarks in X-Bookmark give a client its own writes.
app.use("*", requestRouting());

// Rebuilt on the site's group when the request is routed (core/routing.ts).
app.use("*", async (c, next) => {
  c.set("services", contentServices(c.env, c.get("log")));
  await next();
});

// CORS preflight for browser callers with pk_ keys (the actual request enforces the key's allowlist),
// for analytics collection (the one POST a pk_ key makes; a JSON-typed fetch preflights, sendBeacon does
// not) and for the anonymous form submissions of a site's pages (JSON bodies need a preflight).
app.options("/v1/*", (c) => {
  const origin = c.req.header("origin");
  if (!origin) return c.body(null, 204);
  const collect = c.req.path === COLLECT_PATH;
  const submission = /^\/v1\/sites\/[^/]+\/forms\/[^/]+\/submissions$/.test(c.req.path);
  return c.body(null, 204, {
    "access-control-allow-origin": origin,
    "access-control-allow-methods": collect || submission ? "POST" : "GET, HEAD",
    "access-control-allow-headers": collect
      ? "Authorization, Content-Type"
      : submission
        ? "Content-Type"
        : "Authorization, If-None-Match",
    "access-control-max-age": "600",
    vary: "Origin",
  });
});

registerProbeRoutes(app, () => openApiLoaded());
registerApiKeyRoutes(app);
registerWebhookRoutes(app);
registerSiteRoutes(app);
registerSiteSettingsRoutes(app);
registerPostListRoute(app);
registerPostRoutes(app);
registerRevisionRoutes(app);
registerPreviewRoutes(app);
registerSearchRoute(app);
registerFeedRoutes(app);
registerMediaRoutes(app);
registerBulkRoutes(app);
registerAnalyticsRoutes(app);
registerLeadRoutes(app);
registerFormRoutes(app);
registerMediaPublicRoute(app);
registerMcpRoute(app);
registerTaxonomyRoutes(app);
registerAuthorRoutes(app);
registerDashboardPostRoutes(app);
registerDashboardContentRoutes(app);
serveApiDocs(app, API_INFO, CONTENT_DOCUMENT_RULES);

let openApiDocument: boolean | null = null;
/** The OpenAPI document is generated once per isolate; /ready reports whether that succeeded. */
function openApiLoaded(): boolean {
  if (openApiDocument === null) {
    try {
      app.getOpenAPI31Document({ openapi: "3.1.0", info: API_INFO });
      openApiDocument = true;
    } catch {
      openApiDocument = false;
    }
  }
  return openApiDocument;
}
