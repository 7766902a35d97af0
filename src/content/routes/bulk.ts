/** Bulk import (`POST /v1/import`, NDJSON of CreatePost lines) and export (`GET /v1/export`). */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { problemResponses } from "../../lib/app";
import type { KeyRequirement } from "../auth/api-key";
import { requireKey, security } from "../auth/middleware";
import type { AppEnv } from "../bindings";
import { exportPosts, exportResource } from "../bulk-export";
import { checkImportRequest, IMPORT_MAX_LINES, importPosts } from "../bulk-import";

function exportRequirement(c: Context<AppEnv>): KeyRequirement {
  const resource = c.req.query("resource");
  if (resource === "posts") return { kinds: "secret", scopes: ["export", "posts:write"], quota: "read" };
  if (resource === "leads") return { kinds: "secret", scopes: ["export", "leads:read"], quota: "read" };
  return { kinds: "secret", scopes: ["export"], quota: "read" };
}

export function registerBulkRoutes(app: OpenAPIHono<AppEnv>) {
  app.openAPIRegistry.registerPath({
    method: "post",
    path: "/v1/import",
    tags: ["Bulk"],
    summary: "Bulk import posts (NDJSON)",
    description: `Scopes import AND posts:write (ck_). One CreatePost per line; site, organization and author come from the key. Idempotent by line content (a repeated line answers duplicate). At most ${IMPORT_MAX_LINES} lines and 8 MiB. A line with access restricted fails (RESTRICTED_NOT_IMPORTABLE).`,
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
  app.post(
    "/v1/import",
    requireKey({ kinds: "secret", scopes: ["import", "posts:write"], quota: "write" }),
    async (c) => {
      const key = c.get("auth");
      checkImportRequest(key, c.req.query("resource"), c.req.header("content-length"));
      return c.json(await importPosts(c.env, c.get("services"), key, await c.req.text()), 200);
    },
  );

  app.openAPIRegistry.registerPath(
    createRoute({
      method: "get",
      path: "/v1/export",
      tags: ["Bulk"],
      summary: "Bulk export (NDJSON stream)",
      description:
        "Scope export (ck_). resource=posts also needs posts:write and streams the whole collection (draft, scheduled, published, archived; never deleted) with blocks_json, one CreatePost-shaped line per post (format ndjson only; csv is 400). resource=leads also needs leads:read; resource=analytics needs analytics:read; neither has a backend bound to this service yet (404).",
      security: [
        { apiKey: ["export", "posts:write"] },
        { apiKey: ["export", "leads:read"] },
        { apiKey: ["export"] },
      ],
      request: {
        query: z.object({
          resource: z.enum(["posts", "leads", "analytics"]),
          format: z.enum(["ndjson", "csv"]).optional(),
        }),
      },
      responses: {
        // A plain schema object: the handler answers with a streamed Response.
        200: {
          description: "NDJSON stream",
          content: { "application/x-ndjson": { schema: { type: "string" } } },
        },
        ...problemResponses({
          400: "Bad resource or format",
          401: "Key",
          403: "Scopes, or a pk_ key",
          404: "No backend for the resource",
          429: "Quota",
        }),
      },
    }),
  );
  // Served by a plain handler: the answer is a streamed Response.
  app.get("/v1/export", requireKey(exportRequirement), (c) => {
    const key = c.get("auth");
    exportResource(key, c.req.query("resource"), c.req.query("format"));
    const { body, filename } = exportPosts(c.env.DB, key.siteId, new Date().toISOString());
    return new Response(body, {
      status: 200,
      headers: {
        "content-type": "application/x-ndjson",
        "content-disposition": `attachment; filename="${filename}"`,
        "cache-control": "private, no-store",
      },
    });
  });
}
