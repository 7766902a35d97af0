/**
 * Security events (issue 18, beyond the spec): the caller's own account events, and an organization's
 * events for its members with `members:manage`. Keyset paging by event id, newest first.
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { problemResponses } from "../../lib/app";
import { parseUlid } from "../../lib/ids";
import { bearerAuth } from "../core/auth";
import type { AppEnv } from "../core/context";
import { jsonResponse, parseOrgId } from "../core/schemas";
import { fail } from "../errors";
import { requireOrgMember } from "../members/members";
import { ACCOUNT_EVENT_TYPES, ORG_EVENT_TYPES } from "./events";
import { listEvents } from "./store";

const DEFAULT_LIMIT = 50;

const EventItem = z
  .object({
    id: z.string(),
    type: z.string(),
    method: z.string().nullable(),
    actor_user_id: z.string().nullable(),
    target: z.string().nullable(),
    detail: z.string().nullable(),
    ip_prefix: z.string().nullable().openapi({ description: "The client's /24 (IPv4) or /48 (IPv6)" }),
    user_agent: z.string().nullable().openapi({ description: 'Browser and OS families: "Firefox on Linux"' }),
    created_at: z.string(),
  })
  .openapi("SecurityEvent");

const EventPage = z
  .object({ items: z.array(EventItem), next_cursor: z.string().nullable() })
  .openapi("SecurityEventPage");

const pageQuery = <T extends readonly [string, ...string[]]>(types: T) =>
  z.object({
    cursor: z.string().max(64).optional().openapi({ description: "next_cursor of the previous page" }),
    type: z.enum(types).optional(),
    limit: z.coerce.number().int().min(1).max(100).optional(),
  });

function cursorOf(raw: string | undefined): string | null {
  if (raw === undefined) return null;
  const id = parseUlid(raw);
  if (!id) fail("BAD_REQUEST", "cursor: not a cursor of this list.");
  return id;
}

const listEventsRoute = createRoute({
  method: "get",
  path: "/api/v1/auth/events",
  tags: ["Security events"],
  summary: "The caller's security events, newest first (sign-ins, factors, addresses, password)",
  ...bearerAuth,
  request: { query: pageQuery(ACCOUNT_EVENT_TYPES) },
  responses: {
    200: jsonResponse("Events", EventPage),
    ...problemResponses({ 400: "BAD_REQUEST", 401: "UNAUTHENTICATED, TOKEN_EXPIRED" }),
  },
});

const listOrgEventsRoute = createRoute({
  method: "get",
  path: "/api/v1/auth/orgs/{org_id}/events",
  tags: ["Security events"],
  summary:
    "The organization's events (memberships, invitations, roles, transfers; never a member's sign-ins, factors or addresses); members:manage",
  ...bearerAuth,
  request: { params: z.object({ org_id: z.string().max(64) }), query: pageQuery(ORG_EVENT_TYPES) },
  responses: {
    200: jsonResponse("Events", EventPage),
    ...problemResponses({
      400: "BAD_ORG, BAD_REQUEST",
      401: "UNAUTHENTICATED, TOKEN_EXPIRED",
      403: "FORBIDDEN (a member without members:manage)",
      404: "NOT_FOUND (not a member: the organization's existence is not revealed)",
    }),
  },
});

export function registerEventRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(listEventsRoute, async (c) => {
    const q = c.req.valid("query");
    const page = await listEvents(c.env.DB, {
      subject: { column: "user_id", id: c.get("auth").userId },
      cursor: cursorOf(q.cursor),
      type: q.type ?? null,
      limit: q.limit ?? DEFAULT_LIMIT,
    });
    c.header("Cache-Control", "no-store");
    return c.json(page, 200);
  });

  app.openapi(listOrgEventsRoute, async (c) => {
    const orgId = parseOrgId(c.req.valid("param").org_id);
    const q = c.req.valid("query");
    await requireOrgMember(c.env.DB, orgId, c.get("auth").userId, {
      permission: "members:manage",
      notFoundDetail: "No such organization.",
    });
    const page = await listEvents(c.env.DB, {
      subject: { column: "org_id", id: orgId },
      cursor: cursorOf(q.cursor),
      type: q.type ?? null,
      limit: q.limit ?? DEFAULT_LIMIT,
    });
    c.header("Cache-Control", "no-store");
    return c.json(page, 200);
  });
}
