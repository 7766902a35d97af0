/**
 * API key administration by site staff, reached through the edge at `/api/v1/sites/{site_id}/api-keys`.
 * The key is shown once in the creation answer; only its peppered hash is stored. A key's name, scopes,
 * allowed origins and server reads can be edited (`PATCH …/{id}`, docs/decisions/key-editing.md).
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { problemResponses } from "../../lib/app";
import type { AppEnv } from "../core/bindings";
import { fail } from "../errors";
import { CarriedOverSchema, keepApiKey } from "../transfers/carried-over";
import { createApiKey, editApiKey, listApiKeys, revokeSiteApiKey } from "./admin";
import { authorizeSiteAdmin } from "./middleware";
import { SCOPES } from "./scopes";

const SiteParam = z.object({ site_id: z.string().openapi({ description: "Site id (ULID or UUID)" }) });

const ORIGINS_DESCRIPTION =
  "Public keys only (required there): the browser origins the key may be used from. Exact origins (`https://example.com`, `http://localhost:5173`) or, over https, one leading wildcard label (`https://*.my-project.pages.dev` matches `https://abc.my-project.pages.dev`, not `https://my-project.pages.dev` nor `https://a.b.my-project.pages.dev`); never `*` alone nor directly under a public suffix (`https://*.pages.dev`, `https://*.co.uk`: 400 INVALID_ORIGIN).";

const SERVER_READS_DESCRIPTION =
  "Public keys only; default false. When true, a read sent without an `Origin` by a server (server-side rendering, a static build) is served instead of 403 ORIGIN_NOT_ALLOWED, never when its fetch metadata shows a browser (a `Sec-Fetch-Site` or `Sec-Fetch-Dest` header, or a `Sec-Fetch-Mode` other than `cors`; Node's fetch sends `Sec-Fetch-Mode: cors` alone and is served). Such reads count on a per-key bucket of their own (`server-reads`, 600 per minute). Enabling it widens the key.";

const keyName = z.string().trim().min(1).max(100);
const keyScopes = z.array(z.enum(SCOPES)).min(1).max(SCOPES.length);
const keyOrigins = z.array(z.string().max(255)).max(50);

const CreateApiKeyBody = z
  .strictObject({
    name: keyName,
    scopes: keyScopes,
    kind: z.enum(["secret", "public"]),
    allowed_origins: keyOrigins.optional().openapi({ description: ORIGINS_DESCRIPTION }),
    server_reads: z.boolean().optional().openapi({ description: SERVER_READS_DESCRIPTION }),
    author_name: z.string().trim().min(1).max(100).optional().openapi({
      description:
        "Byline of the posts this key writes (the creating staff user's author persona on the site); default: the key's name",
    }),
  })
  .openapi("CreateApiKey");

const EditApiKeyBody = z
  .strictObject({
    name: keyName.optional(),
    scopes: keyScopes.optional().openapi({
      description: "The key's scopes from now on (replaces the list; a public key takes only read scopes).",
    }),
    allowed_origins: keyOrigins.optional().openapi({
      description: `Replaces the list. ${ORIGINS_DESCRIPTION}`,
    }),
    server_reads: z.boolean().optional().openapi({ description: SERVER_READS_DESCRIPTION }),
  })
  .openapi("EditApiKey");

const KeyWarning = z
  .object({
    code: z.enum(["RESERVED_SCOPE"]),
    path: z.string(),
    message: z.string(),
  })
  .openapi("ApiKeyWarning", {
    description:
      "Accepted, but worth knowing: RESERVED_SCOPE when every scope of the key is reserved (`sites:read` gates no operation today), so the key can call nothing.",
  });

const LastWidened = z
  .object({
    at: z.string(),
    by: z.string().nullable().openapi({ description: "The user id of the administrator who widened it" }),
    added: z.object({
      scopes: z.array(z.enum(SCOPES)),
      allowed_origins: z.array(z.string()),
      server_reads: z.boolean(),
    }),
  })
  .nullable()
  .openapi("ApiKeyWidening", {
    description:
      "The key's last widening (an edit that added a scope, an origin or server reads): when, by whom, what it added. Null when never widened.",
  });

const ApiKeyCreated = z
  .object({
    id: z.string(),
    key: z.string().openapi({ description: "Shown once; store it now." }),
    kind: z.enum(["secret", "public"]),
    name: z.string(),
    scopes: z.array(z.enum(SCOPES)),
    allowed_origins: z.array(z.string()),
    server_reads: z.boolean(),
    author: z.object({ display_name: z.string() }),
    created_at: z.string(),
    warnings: z.array(KeyWarning).optional(),
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
    server_reads: z.boolean(),
    created_by: z.string().nullable(),
    created_at: z.string(),
    last_widened: LastWidened,
    carried_over: CarriedOverSchema,
  })
  .openapi("ApiKeySummary");

const ApiKeyEdited = ApiKeySummary.extend({ warnings: z.array(KeyWarning).optional() }).openapi(
  "ApiKeyEdited",
);

const staffProblems = problemResponses({
  400: "Invalid body",
  401: "No signed-in staff session",
  404: "No such site, or the caller may not administer its keys (indistinguishable)",
});

const createApiKeyRoute = createRoute({
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
});

const listApiKeysRoute = createRoute({
  method: "get",
  path: "/api/v1/sites/{site_id}/api-keys",
  tags: ["API keys"],
  summary: "List the site's API keys, carried-over ones marked (never the key itself)",
  request: { params: SiteParam },
  responses: {
    200: {
      description: "Active keys, newest first",
      content: { "application/json": { schema: z.object({ items: z.array(ApiKeySummary) }) } },
    },
    ...staffProblems,
  },
});

const revokeApiKeyRoute = createRoute({
  method: "delete",
  path: "/api/v1/sites/{site_id}/api-keys/{id}",
  tags: ["API keys"],
  summary: "Revoke an API key (effective at once)",
  request: { params: SiteParam.extend({ id: z.string() }) },
  responses: {
    204: { description: "Revoked" },
    ...staffProblems,
  },
});

const editApiKeyRoute = createRoute({
  method: "patch",
  path: "/api/v1/sites/{site_id}/api-keys/{id}",
  tags: ["API keys"],
  summary: "Edit an API key's name, scopes, allowed origins or server reads",
  description:
    "Only the fields sent change (at least one). Costs what creating a key costs (`integrations`). Narrowing holds at once for writes, lead reads and exports everywhere, and for reads in the isolate that answers; other isolates' cached reads follow within 30 s, the revocation bound. A widening (a scope, an origin or server reads the key did not have) is recorded on the key as its creation is and listed with it (`last_widened`: who, when, what was added). A revoked, carried-over or unknown key, or another site's, is 404.",
  request: {
    params: SiteParam.extend({ id: z.string() }),
    body: { content: { "application/json": { schema: EditApiKeyBody } }, required: true },
  },
  responses: {
    200: { description: "Edited", content: { "application/json": { schema: ApiKeyEdited } } },
    ...staffProblems,
  },
});

const keepApiKeyRoute = createRoute({
  method: "post",
  path: "/api/v1/sites/{site_id}/api-keys/{id}/keep",
  tags: ["API keys"],
  summary: "Keep a key a transfer carried over: active again, for the site's new owner",
  description:
    "After a transfer, the previous owner's keys are carried over (suspended, refused like revoked keys) until an administrator of the new owner keeps or revokes each one. Only a carried-over key can be kept; any other id is 404.",
  request: { params: SiteParam.extend({ id: z.string() }) },
  responses: {
    200: { description: "Kept", content: { "application/json": { schema: ApiKeySummary } } },
    ...staffProblems,
  },
});

export function registerApiKeyRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(createApiKeyRoute, async (c) => {
    const { userId, site } = await authorizeSiteAdmin(c);
    const created = await createApiKey(c.env, site, userId, c.req.valid("json"));
    c.header("cache-control", "no-store");
    return c.json(created, 201);
  });

  app.openapi(listApiKeysRoute, async (c) => {
    const { site } = await authorizeSiteAdmin(c);
    const items = await listApiKeys(c.env.DB, site.id);
    c.header("cache-control", "private, no-store");
    return c.json({ items }, 200);
  });

  app.openapi(editApiKeyRoute, async (c) => {
    const { userId, site } = await authorizeSiteAdmin(c);
    const edited = await editApiKey(c.env.DB, site.id, c.req.valid("param").id, userId, c.req.valid("json"));
    c.header("cache-control", "private, no-store");
    return c.json(edited, 200);
  });

  app.openapi(revokeApiKeyRoute, async (c) => {
    const { userId, site } = await authorizeSiteAdmin(c);
    await revokeSiteApiKey(c.env.DB, site.id, c.req.valid("param").id, userId);
    return c.body(null, 204);
  });

  app.openapi(keepApiKeyRoute, async (c) => {
    const { site } = await authorizeSiteAdmin(c);
    const id = await keepApiKey(c.env.DB, site.id, c.req.valid("param").id);
    const [kept] = await listApiKeys(c.env.DB, site.id, id);
    // Revoked or deleted between the keep and this read: gone, as any other id.
    if (!kept) fail("NOT_FOUND", "No such carried-over API key.");
    c.header("cache-control", "private, no-store");
    return c.json(kept, 200);
  });
}
