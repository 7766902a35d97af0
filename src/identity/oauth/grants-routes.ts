/**
 * The grants of MCP agents as problem+json routes of a staff session (issue 37, docs/decisions/oauth-agents.md
 * "Tokens"): the person's own (`/api/v1/auth/oauth/grants`), and a site's for its members holding
 * `integrations` (`/api/v1/auth/sites/{site_id}/oauth-grants`). Another person's grant, another site's
 * grant, and a site the caller may not administer all answer like a missing one: 404.
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { problemResponses } from "../../lib/app";
import { parseId } from "../../lib/ids";
import { bearerAuth } from "../core/auth";
import type { AppEnv } from "../core/context";
import { jsonResponse } from "../core/schemas";
import { fail } from "../errors";
import { personGrants, revokePersonGrant, revokeSiteGrant, siteGrants } from "./grants";

const Grant = z
  .object({
    id: z.string(),
    client_id: z.string(),
    client_name: z.string(),
    client_kind: z.enum(["metadata_document", "registered"]),
    site_id: z.string(),
    scopes: z.array(z.string()),
    created_at: z.string(),
    last_used_at: z.string().nullable(),
  })
  .openapi("OAuthGrant");
const SiteGrant = Grant.extend({ user_id: z.string() }).openapi("SiteOAuthGrant");
/** The person's own listing names each grant's site (the account page shows it). */
const PersonGrant = Grant.extend({
  site_name: z
    .string()
    .nullable()
    .openapi({ description: "The site's name; null while it is archived or deleted" }),
  site_host: z
    .string()
    .nullable()
    .openapi({ description: "The site's host; null while it is archived or deleted" }),
}).openapi("PersonOAuthGrant");

const GrantParam = z.object({ id: z.string().max(64) });
const SiteParam = z.object({ site_id: z.string().max(64) });
const SiteGrantParam = z.object({ site_id: z.string().max(64), id: z.string().max(64) });

function parseGrantId(raw: string): string {
  const id = parseId(raw);
  if (!id) fail("NOT_FOUND", "No such grant.");
  return id;
}

function parseSiteId(raw: string): string {
  const id = parseId(raw);
  if (!id) fail("BAD_ID", "site_id must be a ULID or UUID.");
  return id;
}

const listGrantsRoute = createRoute({
  method: "get",
  path: "/api/v1/auth/oauth/grants",
  tags: ["OAuth"],
  summary: "The caller's live grants of MCP agents (client, site and its name, scopes, last use)",
  ...bearerAuth,
  responses: { 200: jsonResponse("Grants", z.object({ items: z.array(PersonGrant) })) },
});

const revokeGrantRoute = createRoute({
  method: "delete",
  path: "/api/v1/auth/oauth/grants/{id}",
  tags: ["OAuth"],
  summary: "End one of the caller's grants (its refresh tokens and access tokens stop working)",
  ...bearerAuth,
  request: { params: GrantParam },
  responses: {
    204: { description: "Revoked (also when it already was)" },
    ...problemResponses({ 404: "NOT_FOUND (another person's grant answers the same)" }),
  },
});

const listSiteGrantsRoute = createRoute({
  method: "get",
  path: "/api/v1/auth/sites/{site_id}/oauth-grants",
  tags: ["OAuth"],
  summary: "The site's live grants of MCP agents (members holding integrations)",
  ...bearerAuth,
  request: { params: SiteParam },
  responses: {
    200: jsonResponse("Grants", z.object({ items: z.array(SiteGrant) })),
    ...problemResponses({ 400: "BAD_ID", 404: "NOT_FOUND", 500: "LOOKUP_FAILED" }),
  },
});

const revokeSiteGrantRoute = createRoute({
  method: "delete",
  path: "/api/v1/auth/sites/{site_id}/oauth-grants/{id}",
  tags: ["OAuth"],
  summary: "End one of the site's grants (members holding integrations)",
  ...bearerAuth,
  request: { params: SiteGrantParam },
  responses: {
    204: { description: "Revoked (also when it already was)" },
    ...problemResponses({ 400: "BAD_ID", 404: "NOT_FOUND", 500: "LOOKUP_FAILED" }),
  },
});

export function registerGrantRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(listGrantsRoute, async (c) => {
    return c.json({ items: await personGrants(c.env, c.get("auth").userId) }, 200);
  });
  app.openapi(revokeGrantRoute, async (c) => {
    const grantId = parseGrantId(c.req.valid("param").id);
    await revokePersonGrant(c.env, c.get("services"), c.get("auth").userId, grantId);
    return c.body(null, 204);
  });
  app.openapi(listSiteGrantsRoute, async (c) => {
    const siteId = parseSiteId(c.req.valid("param").site_id);
    return c.json({ items: await siteGrants(c.env, c.get("auth"), siteId) }, 200);
  });
  app.openapi(revokeSiteGrantRoute, async (c) => {
    const { site_id, id } = c.req.valid("param");
    const siteId = parseSiteId(site_id);
    await revokeSiteGrant(c.env, c.get("auth"), siteId, parseGrantId(id));
    return c.body(null, 204);
  });
}
