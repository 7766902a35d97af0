/** Organizations of the caller: create (caller becomes org_owner) and list. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { problemResponses } from "../../lib/app";
import { bearerAuth } from "../core/auth";
import type { AppEnv } from "../core/context";
import { jsonBody, jsonResponse } from "../core/schemas";
import { fail } from "../errors";
import { createOrg, listMyOrgs } from "./orgs-store";

const SLUG_RE = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

const Org = z
  .object({ id: z.string(), name: z.string(), slug: z.string(), role: z.string() })
  .openapi("OrganizationMembership");

const createOrgRoute = createRoute({
  method: "post",
  path: "/api/v1/auth/orgs",
  tags: ["Organizations"],
  summary: "Create an organization; the caller becomes its owner",
  ...bearerAuth,
  request: jsonBody(
    z
      .strictObject({ name: z.string().trim().min(1).max(120), slug: z.string().max(63) })
      .openapi("CreateOrgRequest"),
  ),
  responses: {
    201: jsonResponse("Created", Org),
    ...problemResponses({
      400: "BAD_REQUEST, BAD_SLUG",
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

export function registerOrgRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(createOrgRoute, async (c) => {
    const body = c.req.valid("json");
    const slug = body.slug.trim().toLowerCase();
    if (!SLUG_RE.test(slug)) {
      fail("BAD_SLUG", "slug: lower-case letters, digits and inner hyphens, 1-63.");
    }
    const org = await createOrg(c.env.DB, c.get("auth").userId, body.name, slug);
    if (!org) fail("SLUG_TAKEN", "That slug is taken.");
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
