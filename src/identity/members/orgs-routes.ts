/**
 * Organizations of the caller: create (caller becomes org_owner) and list. A creation without `slug`
 * derives it from the name by the sites' rule (src/lib/slug.ts), numbered when taken (`acme`, `acme-2`…);
 * an explicit slug that is taken stays 409 SLUG_TAKEN (docs/decisions/identity-first-hour.md).
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { problemResponses } from "../../lib/app";
import { SLUG_RE, slugFromName } from "../../lib/slug";
import { bearerAuth } from "../core/auth";
import type { AppEnv } from "../core/context";
import { jsonBody, jsonResponse } from "../core/schemas";
import { fail } from "../errors";
import { createOrg, createOrgWithDerivedSlug, listMyOrgs } from "./orgs-store";

const Org = z
  .object({ id: z.string(), name: z.string(), slug: z.string(), role: z.string() })
  .openapi("OrganizationMembership");

const createOrgRoute = createRoute({
  method: "post",
  path: "/api/v1/auth/orgs",
  tags: ["Organizations"],
  summary: "Create an organization; the caller becomes its owner",
  description:
    "Without `slug` the slug is derived from `name` (ASCII-folded, lower case, other characters as one hyphen, at most 63), and numbered when taken: `acme`, `acme-2`, `acme-3`… An explicit `slug` that is taken is 409 SLUG_TAKEN.",
  ...bearerAuth,
  request: jsonBody(
    z
      .strictObject({ name: z.string().trim().min(1).max(120), slug: z.string().max(63).optional() })
      .openapi("CreateOrgRequest"),
  ),
  responses: {
    201: jsonResponse("Created", Org),
    ...problemResponses({
      400: "BAD_REQUEST, BAD_SLUG (also: no slug can be derived from the name; send one)",
      401: "UNAUTHENTICATED, TOKEN_EXPIRED",
      409: "SLUG_TAKEN",
    }),
  },
});

const listOrgsRoute = createRoute({
  method: "get",
  path: "/api/v1/auth/orgs",
  tags: ["Organizations"],
  summary: "The caller's organizations with the caller's role",
  ...bearerAuth,
  responses: {
    200: jsonResponse("Organizations", z.object({ items: z.array(Org), next_cursor: z.null() })),
    ...problemResponses({ 401: "UNAUTHENTICATED, TOKEN_EXPIRED" }),
  },
});

/** A new organization: the explicit slug as sent (409 when taken), or one derived from the name. */
async function createOrganization(db: D1Database, userId: string, name: string, sent: string | undefined) {
  if (sent === undefined) {
    const base = slugFromName(name);
    if (!SLUG_RE.test(base)) fail("BAD_SLUG", "slug: cannot be derived from name; send a slug.");
    const org = await createOrgWithDerivedSlug(db, userId, name, base);
    if (!org) fail("SLUG_TAKEN", "No free slug could be derived from that name; send a slug.");
    return org;
  }
  const slug = sent.trim().toLowerCase();
  if (!SLUG_RE.test(slug)) fail("BAD_SLUG", "slug: lower-case letters, digits and inner hyphens, 1-63.");
  const org = await createOrg(db, userId, name, slug);
  if (!org) fail("SLUG_TAKEN", "That slug is taken.");
  return org;
}

export function registerOrgRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(createOrgRoute, async (c) => {
    const body = c.req.valid("json");
    const org = await createOrganization(c.env.DB, c.get("auth").userId, body.name, body.slug);
    return c.json({ id: org.id, name: org.name, slug: org.slug, role: org.role }, 201);
  });

  app.openapi(listOrgsRoute, async (c) => {
    const { results } = await listMyOrgs(c.env.DB, c.get("auth").userId);
    return c.json(
      {
        items: results.map((o) => ({ id: o.id, name: o.name, slug: o.slug, role: o.role })),
        next_cursor: null,
      },
      200,
    );
  });
}
