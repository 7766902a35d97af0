/** Spec section "Sites": create, batch, by-host, read, partial update, soft delete. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import { problemResponses } from "../../lib/app";
import { readEdgeIdentity } from "../../lib/edge";
import type { SitesAppEnv } from "../core/app-env";
import { IdParam, json, jsonBody } from "../core/route-parts";
import { fail } from "../errors";
import { guardedSite, holdsPermission, siteGuard } from "./guard";
import { PublicSiteSchema, SiteSchema, siteRecordOf } from "./record";
import { batchSites, createSite, deleteSite, parseBatchIds, patchSite, siteByHost } from "./service";
import { settingsJsonSchema } from "./settings/json-schema";

const Theme = z.string().min(1).max(64).nullable();

const Languages = z.array(z.string().max(35)).max(50);
const Host = z.string().max(253);

const CreateSiteBody = z
  .object({
    org_id: z.string().max(64).openapi({ description: "Owner organization (ULID or UUID)" }),
    name: z.string().min(1).max(120),
    slug: z.string().max(63).optional().openapi({ description: "Derived from name when absent" }),
    primary_domain: Host.nullable().optional(),
    aliases: z.array(Host).optional(),
    default_language: z.string().max(35).optional().openapi({ description: 'Default "en"' }),
    languages: Languages.optional(),
    theme: Theme.optional(),
    settings: z.unknown().optional().openapi(settingsJsonSchema("Settings document")),
  })
  .strict()
  .openapi("CreateSite");

const UpdateSiteBody = z
  .object({
    name: z.string().min(1).max(120).optional(),
    slug: z.string().max(63).optional(),
    primary_domain: Host.nullable().optional(),
    aliases: z.array(Host).optional(),
    default_language: z.string().max(35).optional(),
    languages: Languages.optional(),
    theme: Theme.optional(),
    settings: z.unknown().optional().openapi(settingsJsonSchema("REPLACES the whole settings document")),
  })
  .strict()
  .openapi("UpdateSite");

const createSiteRoute = createRoute({
  method: "post",
  path: "/api/v1/sites",
  summary: "Create a site under an organization",
  request: { body: jsonBody(CreateSiteBody) },
  responses: {
    201: json(SiteSchema, "Site created"),
    ...problemResponses({
      400: "Invalid body, org_id or settings",
      413: "PAYLOAD_TOO_LARGE: body over 1 MiB",
      403: "FORBIDDEN: org_id is not among the caller's organizations, or settings carry markup (code_injection, about_html, advanced, home.blocks[].html, an html or *_html key inside a free-form value) and the caller is no owner or admin of it",
      409: "DOMAIN_TAKEN, SLUG_TAKEN or SITE_LIMIT_REACHED",
      500: "Internal failure (detail redacted)",
    }),
  },
});

const batchRoute = createRoute({
  method: "get",
  path: "/api/v1/sites/batch",
  summary: "Resolve several sites (only those the caller may see; others omitted)",
  request: {
    query: z.object({
      ids: z.string().optional().openapi({ description: "Comma-separated ULIDs, at most 200" }),
    }),
  },
  responses: {
    200: json(z.object({ items: z.array(SiteSchema) }).openapi("SiteBatch"), "Visible, granted sites"),
    ...problemResponses({ 400: "ids missing, empty, invalid or more than 200" }),
  },
});

const byHostRoute = createRoute({
  method: "get",
  path: "/api/v1/sites/by-host",
  summary: "The active site serving a host (for the renderer; public)",
  request: { query: z.object({ host: z.string().optional() }) },
  responses: {
    200: json(PublicSiteSchema, "Site serving the host"),
    ...problemResponses({ 400: "host missing or not a host name", 404: "No active site serves this host" }),
  },
});

const getSiteRoute = createRoute({
  method: "get",
  path: "/api/v1/sites/{id}",
  summary: "Read a site",
  request: { params: IdParam },
  responses: {
    200: json(SiteSchema, "Site"),
    ...problemResponses({ 400: "id is neither ULID nor UUID", 404: "Site missing or not the caller's" }),
  },
});

const patchSiteRoute = createRoute({
  method: "patch",
  path: "/api/v1/sites/{id}",
  summary: "Partial update (only present fields apply; settings replaces the whole document)",
  request: {
    params: IdParam,
    body: jsonBody(UpdateSiteBody),
  },
  responses: {
    200: json(SiteSchema, "Updated site (markup sanitized, rehosted images swapped in)"),
    ...problemResponses({
      400: "BAD_REQUEST or a settings validator code (SETTINGS_*, CUSTOMIZATION_*, ADS_UNIT_*, LOGO_*, MODALS_*), with the field's path in details.path; SETTINGS_UNKNOWN_KEY for a key the settings schema does not declare (not under ads or free-form values, nor when stored with the same value)",
      403: "FORBIDDEN: a member whose role may not change settings, or a change of markup settings (code_injection, about_html, advanced, home.blocks[].html, an html or *_html key inside a free-form value: added, changed or removed by omission) by a member without the code permission (owners and organization admins); resending them unchanged passes",
      404: "Site missing or not the caller's",
      409: "DOMAIN_TAKEN, SLUG_TAKEN, SETTINGS_UNREADABLE or EDIT_CONFLICT (the settings changed while a PATCH without the `code` permission was checked)",
      413: "PAYLOAD_TOO_LARGE: body over 1 MiB",
      422: "IMAGEM_EXTERNA_INVALIDA (with top-level invalid_images)",
      500: "Internal failure",
    }),
  },
});

const deleteSiteRoute = createRoute({
  method: "delete",
  path: "/api/v1/sites/{id}",
  summary: "Soft delete (reversible, data kept)",
  request: { params: IdParam },
  responses: {
    204: { description: "Deleted" },
    ...problemResponses({
      400: "id is neither ULID nor UUID",
      403: "FORBIDDEN: a member whose role may not delete the site",
      404: "Site missing or not the caller's",
      500: "Internal failure",
    }),
  },
});

/** Bounds what a write may make us parse and store (a D1 row holds at most 2 MB). */
export const MAX_BODY_BYTES = 1024 * 1024;

const limitBody = bodyLimit({
  maxSize: MAX_BODY_BYTES,
  onError: () => {
    fail("PAYLOAD_TOO_LARGE", `Request body larger than ${MAX_BODY_BYTES} bytes.`);
  },
});

export function registerSiteRoutes(app: OpenAPIHono<SitesAppEnv>) {
  app.use("/api/v1/sites/:id", siteGuard);
  app.use("/api/v1/sites/:id/*", siteGuard);
  app.use("/api/v1/sites", limitBody);
  app.use("/api/v1/sites/*", limitBody);

  app.openapi(createSiteRoute, async (c) => {
    const site = await createSite(
      c.env,
      c.get("services"),
      readEdgeIdentity(c.req.raw.headers),
      c.req.valid("json"),
    );
    return c.json(site, 201);
  });

  app.openapi(batchRoute, async (c) => {
    const ids = parseBatchIds(c.req.valid("query").ids);
    return c.json({ items: await batchSites(c.env, readEdgeIdentity(c.req.raw.headers), ids) }, 200);
  });

  app.openapi(byHostRoute, async (c) => {
    const site = await siteByHost(c.env, c.get("services"), c.req.valid("query").host);
    if (!site) fail("NOT_FOUND", "No site serves this host.");
    return c.json(site, 200);
  });

  app.openapi(getSiteRoute, async (c) => {
    return c.json(await siteRecordOf(c.env.DB, guardedSite(c), c.env.PLATFORM_DOMAIN), 200);
  });

  app.openapi(patchSiteRoute, async (c) => {
    const site = guardedSite(c, "settings");
    const mayEditCode = holdsPermission(c, "code");
    return c.json(await patchSite(c.env, c.get("services"), site, c.req.valid("json"), mayEditCode), 200);
  });

  app.openapi(deleteSiteRoute, async (c) => {
    await deleteSite(c.env, c.get("services"), guardedSite(c, "delete"));
    return c.body(null, 204);
  });
}
