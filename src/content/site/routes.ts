/** `GET /v1/site` (the key's site) and `GET /v1/post-types`. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { problemResponses } from "../../lib/app";
import type { SiteProjection } from "../../lib/rpc";
import type { AppEnv } from "../core/bindings";
import { siteHost } from "../core/effects/outbound";
import { keySite } from "../keys/api-key";
import { keyAuth } from "../keys/middleware";
import { listPostTypes } from "./store";

const SiteSchema = z
  .object({
    id: z.string(),
    org_id: z.string(),
    slug: z.string(),
    name: z.string(),
    default_language: z.string(),
    status: z.string(),
    primary_domain: z.string().nullable(),
    canonical_host: z.string().openapi({
      description: "The host the site is served on: primary_domain, else {slug}.{platform domain}",
      example: "blog.example.com",
    }),
    url: z
      .string()
      .openapi({ description: "https://{canonical_host}/", example: "https://blog.example.com/" }),
    updated_at: z.string(),
  })
  .openapi("Site");

/** The Site answer: the projection's fields and where the site is served. */
function siteView(site: SiteProjection, platformDomain: string) {
  const host = siteHost(site, platformDomain);
  return {
    id: site.id,
    org_id: site.org_id,
    slug: site.slug,
    name: site.name,
    default_language: site.default_language,
    status: site.status,
    primary_domain: site.primary_domain,
    canonical_host: host,
    url: `https://${host}/`,
    updated_at: site.updated_at,
  };
}

const PostTypeSchema = z
  .object({ slug: z.string(), name: z.string(), public: z.boolean() })
  .openapi("PostType");

const getSiteRoute = createRoute({
  method: "get",
  path: "/v1/site",
  tags: ["Site"],
  summary: "Get data of the key's site",
  description: "Any valid key (ck_ or pk_, no scope required: the spec lists no 403).",
  ...keyAuth({ kinds: "any", scopes: [], quota: "read" }),
  request: { query: z.object({ key: z.string().optional() }) },
  responses: {
    200: { description: "The site", content: { "application/json": { schema: SiteSchema } } },
    ...problemResponses({ 401: "Key missing or invalid", 403: "pk_ origin not allowed", 429: "Quota" }),
  },
});

const listPostTypesRoute = createRoute({
  method: "get",
  path: "/v1/post-types",
  tags: ["Site"],
  summary: "List post types of the site",
  description: "Scope post_types:read. A pk_ key sees public types only.",
  ...keyAuth({ kinds: "any", scopes: ["post_types:read"], quota: "read" }),
  request: { query: z.object({ key: z.string().optional() }) },
  responses: {
    200: {
      description: "Post types",
      content: { "application/json": { schema: z.object({ items: z.array(PostTypeSchema) }) } },
    },
    ...problemResponses({ 401: "Key missing or invalid", 403: "Scope or origin", 429: "Quota" }),
  },
});

export function registerSiteRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(getSiteRoute, async (c) => {
    return c.json(siteView(await keySite(c.env.DB, c.get("auth")), c.env.PLATFORM_DOMAIN), 200);
  });

  app.openapi(listPostTypesRoute, async (c) => {
    const auth = c.get("auth");
    const types = await listPostTypes(c.env.DB, auth.siteId);
    const items = types
      .filter((t) => auth.kind === "secret" || t.is_public === 1)
      .map((t) => ({ slug: t.slug, name: t.name, public: t.is_public === 1 }));
    return c.json({ items }, 200);
  });
}
