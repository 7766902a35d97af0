/**
 * API key administration by site staff, reached through the edge at `/api/v1/sites/{site_id}/api-keys`.
 * The key is shown once in the creation answer; only its peppered hash is stored.
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { problemResponses } from "../../lib/app";
import { newId, parseId } from "../../lib/ids";
import type { SiteProjection } from "../../lib/rpc";
import { generateApiKey, hashApiKey } from "../auth/key-hash";
import { PUBLIC_KEY_SCOPES, SCOPES } from "../auth/scopes";
import { authorizeKeyAdmin, siteNotFound } from "../auth/site-staff";
import type { AppEnv } from "../bindings";
import { fail } from "../errors";
import { type ApiKeyRecord, insertApiKey, listActiveApiKeys, revokeApiKey } from "../store/api-keys";

const SiteParam = z.object({ site_id: z.string().openapi({ description: "Site id (ULID or UUID)" }) });

const CreateApiKeyBody = z
  .object({
    name: z.string().trim().min(1).max(100),
    scopes: z.array(z.enum(SCOPES)).min(1).max(SCOPES.length),
    kind: z.enum(["secret", "public"]),
    allowed_origins: z.array(z.string().max(255)).max(50).optional(),
  })
  .openapi("CreateApiKey");

const ApiKeyCreated = z
  .object({
    id: z.string(),
    key: z.string().openapi({ description: "Shown once; store it now." }),
    kind: z.enum(["secret", "public"]),
    name: z.string(),
    scopes: z.array(z.enum(SCOPES)),
    allowed_origins: z.array(z.string()),
    created_at: z.string(),
  })
  .openapi("ApiKeyCreated");

const ApiKeySummary = z
  .object({
    id: z.string(),
    kind: z.enum(["secret", "public"]),
    name: z.string(),
    key_prefix: z.string(),
    scopes: z.array(z.enum(SCOPES)),
    allowed_origins: z.array(z.string()),
    created_by: z.string().nullable(),
    created_at: z.string(),
  })
  .openapi("ApiKeySummary");

const staffProblems = problemResponses({
  400: "Invalid body",
  401: "No signed-in staff session",
  404: "No such site, or the caller may not administer its keys (indistinguishable)",
});

/** An exact origin: scheme, host and optional port, nothing else (no path, query, fragment or wildcard). */
export function normalizeOrigin(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return null;
  // No wildcards or other odd host characters: the allowlist compares exact origins.
  if (!/^(?:[a-z0-9-]+\.)*[a-z0-9-]+$|^\[[0-9a-f:.]+\]$/.test(url.hostname)) return null;
  if (url.origin !== value.replace(/\/$/, "")) return null;
  return url.origin;
}

function summary(key: ApiKeyRecord) {
  return {
    id: key.id,
    kind: key.kind,
    name: key.name,
    key_prefix: key.key_prefix,
    scopes: key.scopes,
    allowed_origins: key.allowed_origins,
    created_by: key.created_by,
    created_at: key.created_at,
  };
}

/** The staff caller and the `{site_id}` site; an id that is no id is 404 like any site the caller may not see. */
function authorizeFromPath(c: Context<AppEnv>): Promise<{ userId: string; site: SiteProjection }> {
  const siteId = parseId(c.req.param("site_id") ?? "");
  if (!siteId) throw siteNotFound();
  return authorizeKeyAdmin(c.req.raw.headers, c.env.DB, siteId);
}

export function registerApiKeyRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/sites/{site_id}/api-keys",
      tags: ["API keys"],
      summary: "Create an API key for the site (shown once)",
      request: {
        params: SiteParam,
        body: { content: { "application/json": { schema: CreateApiKeyBody } }, required: true },
      },
      responses: {
        201: { description: "Created", content: { "application/json": { schema: ApiKeyCreated } } },
        ...staffProblems,
      },
    }),
    async (c) => {
      const { userId, site } = await authorizeFromPath(c);
      const body = c.req.valid("json");
      const scopes = [...new Set(body.scopes)];
      let origins: string[] = [];
      if (body.kind === "public") {
        if (!body.allowed_origins || body.allowed_origins.length === 0) {
          fail(
            "ALLOWED_ORIGINS_REQUIRED",
            "A public key needs a non-empty allowed_origins list of exact origins.",
          );
        }
        const bad = body.allowed_origins.filter((o) => normalizeOrigin(o) === null);
        if (bad.length > 0) {
          fail("INVALID_ORIGIN", {
            detail:
              "allowed_origins entries must be exact origins like https://example.com (no path or wildcard).",
            details: { invalid: bad },
          });
        }
        origins = [...new Set(body.allowed_origins.map((o) => normalizeOrigin(o)!))];
        const forbidden = scopes.filter((s) => !PUBLIC_KEY_SCOPES.includes(s));
        if (forbidden.length > 0) {
          fail("SCOPE_NOT_ALLOWED", {
            detail: `A public key carries only read scopes (${PUBLIC_KEY_SCOPES.join(", ")}).`,
            details: { forbidden },
          });
        }
      } else if (body.allowed_origins && body.allowed_origins.length > 0) {
        fail("BAD_REQUEST", "allowed_origins applies to public keys only.");
      }
      const key = generateApiKey(body.kind);
      const record: ApiKeyRecord = {
        id: newId(),
        site_id: site.id,
        name: body.name,
        kind: body.kind,
        key_prefix: key.slice(0, 10),
        scopes,
        allowed_origins: origins,
        created_by: userId,
        created_at: new Date().toISOString(),
      };
      await insertApiKey(c.env.DB, { ...record, key_hash: await hashApiKey(c.env.API_KEY_PEPPER, key) });
      c.header("cache-control", "no-store");
      return c.json(
        {
          id: record.id,
          key,
          kind: record.kind,
          name: record.name,
          scopes: record.scopes,
          allowed_origins: record.allowed_origins,
          created_at: record.created_at,
        },
        201,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/sites/{site_id}/api-keys",
      tags: ["API keys"],
      summary: "List the site's active API keys (never the key itself)",
      request: { params: SiteParam },
      responses: {
        200: {
          description: "Active keys, newest first",
          content: { "application/json": { schema: z.object({ items: z.array(ApiKeySummary) }) } },
        },
        ...staffProblems,
      },
    }),
    async (c) => {
      const { site } = await authorizeFromPath(c);
      const keys = await listActiveApiKeys(c.env.DB, site.id);
      c.header("cache-control", "private, no-store");
      return c.json({ items: keys.map(summary) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/api/v1/sites/{site_id}/api-keys/{id}",
      tags: ["API keys"],
      summary: "Revoke an API key (effective at once)",
      request: { params: SiteParam.extend({ id: z.string() }) },
      responses: {
        204: { description: "Revoked" },
        ...staffProblems,
      },
    }),
    async (c) => {
      const { userId, site } = await authorizeFromPath(c);
      const keyId = parseId(c.req.param("id"));
      const revoked =
        keyId !== null && (await revokeApiKey(c.env.DB, site.id, keyId, userId, new Date().toISOString()));
      if (!revoked) fail("NOT_FOUND", "No such API key.");
      return c.body(null, 204);
    },
  );
}
