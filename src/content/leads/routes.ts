/** `GET /v1/leads` and `GET /v1/leads/{id}`: scope leads:read (ck_), strict 10/min, every read audited. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { problemResponses } from "../../lib/app";
import { enumQuery, integerQuery } from "../../lib/query-params";
import type { AppEnv } from "../core/bindings";
import { includeQuery, includesTotal } from "../core/list-include";
import type { KeyRequirement } from "../keys/api-key";
import { clientIp, keyAuth } from "../keys/middleware";
import { pageSchema } from "../posts/shapes";
import { leadReader } from "./audit";
import {
  DEFAULT_LEAD_ORDER,
  DEFAULT_LEAD_STATUS,
  LEAD_ORDERS,
  LEAD_STATUS_VALUES,
  LEADS_DEFAULT_LIMIT,
  LEADS_MAX_LIMIT,
  leadListRequest,
  listLeads,
  readLead,
} from "./listing";
import { LeadSchema } from "./shapes";

const LEADS_KEY: KeyRequirement = { kinds: "secret", scopes: ["leads:read"], quota: "read" };

export const LeadFilterQuerySchema = {
  form_id: z
    .string()
    .optional()
    .openapi({ description: "Form id (ULID or UUID); else 400; no form of the site: 422" }),
  status: enumQuery(LEAD_STATUS_VALUES, `Default ${DEFAULT_LEAD_STATUS}; else 400 INVALID_STATUS`),
  de: z.string().optional().openapi({ description: "Start, inclusive: YYYY-MM-DD (00:00 UTC) or RFC 3339" }),
  ate: z.string().optional().openapi({
    description: "End, inclusive: YYYY-MM-DD (the whole day, UTC) or RFC 3339; before de: 422",
  }),
};

export const LeadListQuery = z.object({
  ...LeadFilterQuerySchema,
  cursor: z
    .string()
    .optional()
    .openapi({ description: "Opaque, the previous page's next_cursor; corrupt: 400" }),
  limit: integerQuery({
    minimum: 1,
    maximum: LEADS_MAX_LIMIT,
    default: LEADS_DEFAULT_LIMIT,
    description: "Else 400 INVALID_LIMIT, never clamped",
  }),
  ordem: enumQuery(LEAD_ORDERS, `By creation time (default ${DEFAULT_LEAD_ORDER}); else 400 INVALID_ORDER`),
  include: includeQuery(),
});

/** A page of leads (also the dashboard's `GET /api/v1/sites/{site_id}/leads`). */
export const LeadPageSchema = pageSchema(LeadSchema, "LeadPage").extend({
  total: z.number().int().optional().openapi({
    description: "With include=total: how many leads the filters match in all (not the page)",
  }),
});

const READ_RULES =
  "Scope leads:read (ck_ only; never granted by default). Strict limit: 10 lead reads per minute per key on top of the read quota (429 with Retry-After). Every read is audited (key, its creating user, time, lead ids or filters, count) before it answers; a key without a creating user gets 422.";

function reader(c: Context<AppEnv>) {
  return leadReader(c.get("auth"), c.get("log").requestId, clientIp(c));
}

const listLeadsRoute = createRoute({
  method: "get",
  path: "/v1/leads",
  tags: ["Leads"],
  summary: "List leads",
  description: `${READ_RULES} Keyset pages in creation order. A site without the forms app: 404.`,
  ...keyAuth(LEADS_KEY),
  request: { query: LeadListQuery },
  responses: {
    200: {
      description: "A page of leads",
      content: { "application/json": { schema: LeadPageSchema } },
    },
    ...problemResponses({
      400: "Invalid parameter (limit, cursor, status, ordem, form_id, de, ate)",
      401: "Key missing or invalid",
      403: "Scope, or not a ck_ key",
      404: "The site has no forms app",
      422: "de after ate; form_id of no form of the site; key without a creating user",
      429: "Quota or the leads limit",
    }),
  },
});

const getLeadRoute = createRoute({
  method: "get",
  path: "/v1/leads/{id}",
  tags: ["Leads"],
  summary: "Get a lead",
  description: `${READ_RULES} Another site's lead, a missing id or a site without the forms app: the same 404.`,
  ...keyAuth(LEADS_KEY),
  request: { params: z.object({ id: z.string().openapi({ description: "Lead id (ULID or UUID)" }) }) },
  responses: {
    200: {
      description: "The lead (the list item shape)",
      content: { "application/json": { schema: LeadSchema } },
    },
    ...problemResponses({
      401: "Key missing or invalid",
      403: "Scope, or not a ck_ key",
      404: "No such lead (any reason)",
      422: "Key without a creating user",
      429: "Quota or the leads limit",
    }),
  },
});

/** The lead handlers (audited), shared by the `/v1` key routes and the dashboard routes. */
export async function leadListAnswer(c: Context<AppEnv>, query: z.infer<typeof LeadListQuery>) {
  const request = leadListRequest(query);
  const total = includesTotal(query.include);
  const page = await listLeads(c.env, reader(c), request, new Date().toISOString(), total);
  c.header("cache-control", "private, no-store");
  return c.json(page, 200);
}

export async function leadAnswer(c: Context<AppEnv>, id: string) {
  const lead = await readLead(c.env, reader(c), id, new Date().toISOString());
  c.header("cache-control", "private, no-store");
  return c.json(lead, 200);
}

export function registerLeadRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(listLeadsRoute, (c) => leadListAnswer(c, c.req.valid("query")));
  app.openapi(getLeadRoute, (c) => leadAnswer(c, c.req.valid("param").id));
}
