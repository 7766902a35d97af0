/** Bulk import (`POST /v1/import`, NDJSON of CreatePost lines) and export (`GET /v1/export`). */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { problemResponses } from "../../lib/app";
import type { ExportFile } from "../analytics/export";
import { exportAnalytics } from "../analytics/export";
import { AnalyticsWindowQuery } from "../analytics/routes";
import type { AppEnv, Env, Services } from "../core/bindings";
import type { KeyRequirement } from "../keys/api-key";
import type { KeyContext } from "../keys/key-context";
import { clientIp, requireKey, security } from "../keys/middleware";
import { leadReader } from "../leads/audit";
import { exportLeads, leadsExportRequest } from "../leads/export";
import { LeadFilterQuerySchema } from "../leads/routes";
import { ConversionSchema } from "../posts/convert/body";
import { exportPosts, exportResource } from "./export";
import { checkImportRequest, IMPORT_MAX_LINES, importPosts } from "./import";

/** `GET /v1/export`'s query (the handler reads it raw: each resource's rules parse their own parameters). */
export const ExportQuery = z.object({
  resource: z.enum(["posts", "leads", "analytics"]),
  format: z.enum(["ndjson", "csv"]).optional().openapi({ description: "Default ndjson" }),
  ...AnalyticsWindowQuery.shape,
  group: z.enum(["day", "path"]).optional().openapi({ description: "Analytics only: day (default) or path" }),
  ...LeadFilterQuerySchema,
});

function exportRequirement(c: Context<AppEnv>): KeyRequirement {
  const resource = c.req.query("resource");
  if (resource === "posts") return { kinds: "secret", scopes: ["export", "posts:write"], quota: "read" };
  if (resource === "leads") return { kinds: "secret", scopes: ["export", "leads:read"], quota: "read" };
  if (resource === "analytics")
    return { kinds: "secret", scopes: ["export", "analytics:read"], quota: "read" };
  return { kinds: "secret", scopes: ["export"], quota: "read" };
}

function attachment(file: ExportFile): Response {
  return new Response(file.body, {
    status: 200,
    headers: {
      "content-type": file.contentType,
      "content-disposition": `attachment; filename="${file.filename}"`,
      "cache-control": "private, no-store",
    },
  });
}

/** Who reads an export: the leads' audit names them. */
interface ExportCaller {
  requestId: string | undefined;
  ip: string;
}

/** The file `GET /v1/export` streams: the key's resource, each resource's parameters read from the raw query. */
async function exportFile(
  env: Env,
  services: Services,
  key: KeyContext,
  query: Record<string, string>,
  caller: ExportCaller,
  now: string,
): Promise<ExportFile> {
  const resource = exportResource(key, query.resource, query.format);
  // `return await`: a rejected promise returned as is gets its handler a tick late, and workerd reports it
  // as an unhandled rejection (the request still answers the problem).
  if (resource === "analytics") {
    return await exportAnalytics(services.analytics, key.siteId, query, now.slice(0, 10));
  }
  if (resource === "leads") {
    const request = leadsExportRequest(query);
    return await exportLeads(env, leadReader(key, caller.requestId, caller.ip), request, now);
  }
  return { ...exportPosts(env.DB, key.siteId, now), contentType: "application/x-ndjson" };
}

const importPostsRoute = createRoute({
  method: "post",
  path: "/v1/import",
  tags: ["Bulk"],
  summary: "Bulk import posts (NDJSON)",
  description: `Scopes import AND posts:write (ck_). One CreatePost per line; site, organization and author come from the key (a line's site_id is discarded). A member CreatePost does not declare fails its line (422 UNKNOWN_FIELD naming it; nothing is dropped silently); every member of a posts export line is a CreatePost field, so an export is importable as is. Idempotent by line content (a repeated line answers duplicate); a line equal to an existing post of the site with its slug and language (a site's own export restored) answers duplicate with that post's id; a changed line whose slug is taken fails (SLUG_TAKEN: import never overwrites). References the site cannot resolve (featured image, post type, author) are dropped with a warning on the line. Block types outside the catalogue (old exports, other tools) are kept as they are and listed in the line's unknown_block_types (with an UNKNOWN_BLOCK_TYPE warning each); a known block that breaks its schema is kept too (INVALID_BLOCK warning). At most ${IMPORT_MAX_LINES} lines and 8 MiB. A line with access restricted fails (RESTRICTED_NOT_IMPORTABLE).`,
  security: security("secret", ["import", "posts:write"]),
  request: {
    query: z.object({ resource: z.enum(["posts"]).optional() }),
    body: { required: true, content: { "application/x-ndjson": { schema: z.string() } } },
  },
  responses: {
    200: {
      description: "Summary and one result per line",
      content: {
        "application/json": {
          schema: z.object({
            summary: z.object({
              total: z.number(),
              created: z.number(),
              duplicate: z.number(),
              failed: z.number(),
            }),
            lines: z.array(
              z.object({
                line: z.number(),
                status: z.enum(["created", "duplicate", "failed"]),
                id: z.string().optional(),
                slug: z.string().optional(),
                error: z
                  .object({ status: z.number(), code: z.string(), detail: z.string().optional() })
                  .optional(),
                warnings: z
                  .array(z.object({ field: z.string(), code: z.string(), detail: z.string() }))
                  .optional()
                  .openapi({
                    description:
                      "References this site cannot resolve (featured_image_id, post_type, author_slug), dropped from the line; blocks kept as they are (code UNKNOWN_BLOCK_TYPE, INVALID_BLOCK or UNDECLARED_BLOCK_FIELD, `field` the block's JSON path)",
                  }),
                unknown_block_types: z.array(z.string()).optional().openapi({
                  description:
                    "Block types of the line outside the BlocksDocument catalogue, each once: the post is imported with them stored as is (never rendered)",
                }),
                conversion: ConversionSchema,
              }),
            ),
          }),
        },
      },
    },
    ...problemResponses({
      400: "Bad resource or empty body",
      401: "Key",
      403: "Scopes",
      413: "Above 8 MiB or 1000 lines",
      422: "Key without authorship context",
      429: "Quota",
    }),
  },
});

const exportBulkRoute = createRoute({
  method: "get",
  path: "/v1/export",
  tags: ["Bulk"],
  summary: "Bulk export (NDJSON or CSV stream)",
  description:
    "Scope export (ck_). `format` is `ndjson` (the default) or `csv`. resource=posts also needs posts:write and streams the whole collection (draft, scheduled, published, archived; never deleted) with blocks_json, one CreatePost-shaped line per post (format ndjson only; csv is 400). resource=analytics also needs analytics:read: the window is `from`/`to`/`days` as in GET /v1/analytics/summary; `group=day` (default) is the time series, one line per day of the window with zeros (`date`, `views`, `visitors`, `bot_views`), `group=path` one line per day and path that had views (`date`, `path`, `views`, `visitors`); CSV has a header row. resource=leads also needs leads:read (audited, counted on the strict 10/min leads limit): the lead list's filters form_id, status (default clean), de, ate with the same 400/422 rules, oldest first; format ndjson (default; one Lead per line) or csv (needs form_id: columns id, created_at, status, spam_reasons, page_url, then the form's fields in declared order; RFC 4180 quoting, and a cell starting with = + - @, tab or CR gets a leading apostrophe unless it is a plain number); a site without the forms app is 404.",
  security: [
    { apiKey: ["export", "posts:write"] },
    { apiKey: ["export", "leads:read"] },
    { apiKey: ["export", "analytics:read"] },
  ],
  request: {
    query: ExportQuery,
  },
  responses: {
    // A plain schema object: the handler answers with a streamed Response.
    200: {
      description: "NDJSON or CSV stream (Content-Disposition: attachment)",
      content: {
        "application/x-ndjson": { schema: { type: "string" } },
        "text/csv": { schema: { type: "string" } },
      },
    },
    ...problemResponses({
      400: "Bad resource, format, group, analytics window or lead filter; csv for posts; csv of leads without form_id",
      401: "Key",
      403: "Scopes, or a pk_ key",
      404: "No backend for the resource; a site without the forms app (leads)",
      422: "Leads: de after ate, form_id of no form of the site, key without a creating user",
      429: "Quota, or the leads limit",
    }),
  },
});

export function registerBulkRoutes(app: OpenAPIHono<AppEnv>) {
  app.openAPIRegistry.registerPath(importPostsRoute);
  app.post(
    "/v1/import",
    requireKey({ kinds: "secret", scopes: ["import", "posts:write"], quota: "write" }),
    async (c) => {
      const key = c.get("auth");
      checkImportRequest(key, c.req.query("resource"), c.req.header("content-length"));
      return c.json(await importPosts(c.env, c.get("services"), key, await c.req.text()), 200);
    },
  );

  app.openAPIRegistry.registerPath(exportBulkRoute);
  // Served by a plain handler: the answer is a streamed Response.
  app.get("/v1/export", requireKey(exportRequirement), async (c) => {
    const caller = { requestId: c.get("log").requestId, ip: clientIp(c) };
    const now = new Date().toISOString();
    return attachment(await exportFile(c.env, c.get("services"), c.get("auth"), c.req.query(), caller, now));
  });
}
