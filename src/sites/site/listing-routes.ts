/** `GET /v1/sites` (beyond the spec, issue 23): the caller's sites, for a dashboard's first screen. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { problemResponses } from "../../lib/app";
import { readEdgeIdentity } from "../../lib/edge";
import { enumQuery, integerQuery } from "../../lib/query-params";
import type { SitesAppEnv } from "../core/app-env";
import { MAX_SEARCH_CHARS } from "../operator/console";
import {
  DEFAULT_LIST_PAGE,
  LISTABLE_STATUSES,
  listSitesForCaller,
  MAX_LIST_PAGE,
  SiteListSchema,
} from "./listing";

const ListQuery = z.object({
  org_id: z
    .string()
    .optional()
    .openapi({ description: "Only sites this organization owns or is shared (ULID or UUID)" }),
  role: z.string().optional().openapi({
    description:
      "Only sites where the caller's effective role is this slug (site_owner, site_editor, site_viewer, a site role's slug; the spec's aliases such as editor are accepted)",
  }),
  status: enumQuery(LISTABLE_STATUSES, "Default active and inactive (deleted sites are never listed)"),
  q: z
    .string()
    .optional()
    .openapi({
      description: `Case-insensitive partial match on name, slug and hosts; % and _ are literal; trimmed, then cut to ${MAX_SEARCH_CHARS} characters`,
    }),
  cursor: z.string().optional().openapi({ description: "The previous page's next_cursor" }),
  limit: integerQuery({ minimum: 1, maximum: MAX_LIST_PAGE, default: DEFAULT_LIST_PAGE }),
});

const listRoute = createRoute({
  method: "get",
  path: "/api/v1/sites",
  summary:
    "The caller's sites (organization roles, site roles, shares), each with the caller's role and permissions",
  description:
    "Beyond the spec (issue 23). Keyset paging in id order. A reader session gets an empty list, as `/sites/batch` answers it. With a `role` filter a page may hold fewer than `limit` sites while `next_cursor` is not null.",
  request: { query: ListQuery },
  responses: {
    200: {
      description: "One page of the caller's sites",
      content: { "application/json": { schema: SiteListSchema } },
    },
    ...problemResponses({ 400: "Invalid cursor, org_id, role, status or limit" }),
  },
});

export function registerSiteListRoute(app: OpenAPIHono<SitesAppEnv>) {
  app.openapi(listRoute, async (c) => {
    const identity = readEdgeIdentity(c.req.raw.headers);
    return c.json(await listSitesForCaller(c.env, identity, c.req.valid("query")), 200);
  });
}
