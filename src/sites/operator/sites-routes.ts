/**
 * Spec section "Platform operator console", its sites part: list, detail, purge, deactivate, archive,
 * restore. Every route first passes the operator gate (403 FORBIDDEN before anything is parsed, so a
 * caller without the capability learns nothing): `operator_read` reads, `operator_admin` writes.
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context, Next } from "hono";
import { bodyLimit } from "hono/body-limit";
import { problemResponses } from "../../lib/app";
import { enumQuery, integerQuery } from "../../lib/query-params";
import type { SitesAppEnv } from "../core/app-env";
import { IdParam, json, jsonBody } from "../core/route-parts";
import { fail } from "../errors";
import { SITE_STATUSES, type Transition } from "../site/lifecycle";
import {
  DEFAULT_PAGE,
  listSitesForOperator,
  MAX_PAGE,
  MAX_REASON_CHARS,
  MAX_SEARCH_CHARS,
  PlatformSiteDetailSchema,
  PlatformSiteListSchema,
  parseReason,
  parseSiteId,
  purgeSite,
  siteForOperator,
  transitionSite,
} from "./console";
import { requireOperator } from "./gate";
import { registerGroupMoveRoutes } from "./group-move-routes";

const SiteIdParam = z.object({ site_id: z.string().openapi({ description: "Site id (ULID or UUID)" }) });

const ListQuery = z.object({
  q: z
    .string()
    .optional()
    .openapi({
      description: `Case-insensitive partial match on slug and primary domain; % and _ are literal; trimmed, then cut to ${MAX_SEARCH_CHARS} characters`,
    }),
  org_id: z.string().optional().openapi({ description: "Owner organization, exact (ULID or UUID)" }),
  status: enumQuery(SITE_STATUSES),
  cursor: z
    .string()
    .optional()
    .openapi({ description: "Id (ULID or UUID) of the previous page's last site, or its next_cursor" }),
  limit: integerQuery({ minimum: 1, maximum: MAX_PAGE, default: DEFAULT_PAGE }),
});

const TransitionBody = z
  .object({
    reason: z
      .string()
      .optional()
      .openapi({ description: `Why (stored as status_reason), at most ${MAX_REASON_CHARS} characters` }),
  })
  .strict()
  .openapi("SiteTransition");

const listRoute = createRoute({
  method: "get",
  path: "/api/v1/platform/sites",
  summary: "Operator: list every site, cross-tenant, in any state (keyset paging)",
  request: { query: ListQuery },
  responses: {
    200: json(PlatformSiteListSchema, "One page of sites in id order"),
    ...problemResponses({
      400: "Invalid cursor, org_id, status or limit",
      403: "FORBIDDEN: no operator capability",
    }),
  },
});

const detailRoute = createRoute({
  method: "get",
  path: "/api/v1/platform/sites/{site_id}",
  summary: "Operator: a site in any state, with lifecycle fields and domains",
  request: { params: SiteIdParam },
  responses: {
    200: json(PlatformSiteDetailSchema, "The site"),
    ...problemResponses({
      400: "site_id is neither ULID nor UUID",
      403: "FORBIDDEN: no operator capability",
      404: "NOT_FOUND",
    }),
  },
});

const purgeRoute = createRoute({
  method: "delete",
  path: "/api/v1/platform/sites/{site_id}",
  summary: "Operator: purge a site for good (slug and domains released, audited; content's data kept)",
  request: { params: SiteIdParam },
  responses: {
    204: { description: "Purged" },
    ...problemResponses({
      400: "site_id is neither ULID nor UUID",
      403: "FORBIDDEN: operator_admin needed",
      404: "NOT_FOUND",
      409: "EDIT_CONFLICT: the site kept changing during the purge",
      500: "Purge failure",
    }),
  },
});

function transitionRoute(transition: Transition, summary: string) {
  return createRoute({
    method: "post",
    path: `/api/v1/platform/sites/{id}/${transition}`,
    summary,
    request: {
      params: IdParam,
      body: jsonBody(TransitionBody, false),
    },
    responses: {
      200: json(PlatformSiteDetailSchema, "The resulting state (unchanged when already there)"),
      ...problemResponses({
        400: "id is neither ULID nor UUID, or an invalid body (unknown field, reason too long)",
        403: "FORBIDDEN: operator_admin needed",
        404: "NOT_FOUND",
        409: "SITE_LIMIT_REACHED (leaving deleted without room in the plan) or EDIT_CONFLICT",
        413: "PAYLOAD_TOO_LARGE: body over 16 KiB",
      }),
    },
  });
}

const TRANSITION_ROUTES = [
  transitionRoute("deactivate", "Operator: unpublish a site (status inactive; customers still edit it)"),
  transitionRoute("archive", "Operator: archive a site (invisible to customers)"),
  transitionRoute("restore", "Operator: restore a site to the live state it left (else active)"),
] as const;

/** The gate: reads need a capability, every other method operator_admin. */
async function operatorGate(c: Context<SitesAppEnv>, next: Next) {
  requireOperator(c, c.req.method === "GET" || c.req.method === "HEAD" ? "read" : "write");
  await next();
}

const limitBody = bodyLimit({
  maxSize: 16 * 1024,
  onError: () => {
    fail("PAYLOAD_TOO_LARGE", "Request body larger than 16 KiB.");
  },
});

export function registerPlatformSiteRoutes(app: OpenAPIHono<SitesAppEnv>) {
  app.use("/api/v1/platform/sites", operatorGate);
  app.use("/api/v1/platform/sites/*", operatorGate);
  app.use("/api/v1/platform/sites/*", limitBody);

  app.openapi(listRoute, async (c) => {
    requireOperator(c, "read");
    return c.json(await listSitesForOperator(c.env, c.req.valid("query")), 200);
  });

  app.openapi(detailRoute, async (c) => {
    requireOperator(c, "read");
    return c.json(await siteForOperator(c.env, parseSiteId(c.req.valid("param").site_id)), 200);
  });

  app.openapi(purgeRoute, async (c) => {
    const operator = requireOperator(c, "write");
    await purgeSite(c.env, c.get("services"), operator, parseSiteId(c.req.valid("param").site_id));
    return c.body(null, 204);
  });

  for (const route of TRANSITION_ROUTES) {
    const transition = route.path.split("/").at(-1) as Transition;
    app.openapi(route, async (c) => {
      const operator = requireOperator(c, "write");
      const id = parseSiteId(c.req.valid("param").id);
      const reason = parseReason(c.req.valid("json").reason);
      const site = await transitionSite(c.env, c.get("services"), operator, id, transition, reason);
      return c.json(site, 200);
    });
  }

  // Beyond the spec (issue 38): the site's content moved between content groups, behind the same gate.
  registerGroupMoveRoutes(app);
}
