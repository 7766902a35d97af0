/**
 * Operator console, beyond the spec (issue 38, docs/decisions/site-groups.md "Moving a site"): move a
 * site's content to another content group, follow the move, and see how many sites each group holds.
 * The site routes sit under `/api/v1/platform/sites/*`, behind that prefix's gate (sites-routes.ts:
 * `operator_read` reads, `operator_admin` starts a move); the groups' list passes the same gate here.
 * Content does the move (its SiteMover Durable Object); sites checks the site exists and relays.
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { problemResponses } from "../../lib/app";
import type { SitesAppEnv } from "../core/app-env";
import { json, jsonBody } from "../core/route-parts";
import { fail } from "../errors";
import { auditGroupMove, parseSiteId, siteForOperator } from "./console";
import { requireOperator } from "./gate";

const SiteIdParam = z.object({ site_id: z.string().openapi({ description: "Site id (ULID or UUID)" }) });

const GROUP = /^g\d{3}$/;

const MoveBody = z
  .object({
    to: z.string().openapi({
      description: "The content group to move the site to (as `GET /v1/platform/content-groups` names it)",
      example: "g001",
    }),
  })
  .strict()
  .openapi("GroupMoveRequest");

const MoveSchema = z
  .object({
    site_id: z.string(),
    from: z.string().openapi({ description: "The group the site leaves" }),
    to: z.string().openapi({ description: "The group the site goes to" }),
    state: z.enum(["copying", "switching", "cleaning", "done", "rolling_back", "rolled_back"]).openapi({
      description:
        "copying (the site's writes answer 503 SITE_MOVING meanwhile), switching, cleaning (old rows deleted), done; rolling_back, rolled_back",
    }),
    phase: z.string().openapi({ description: "The mover's step in finer grain" }),
    table: z.string().nullable().openapi({ description: "The table being copied or deleted now" }),
    rows_copied: z.number().int(),
    rows_copied_by_table: z.record(z.string(), z.number().int()),
    rows_deleted: z.number().int(),
    started_at: z.string(),
    finished_at: z.string().nullable(),
    longest_write_refusal_ms: z.number().int().nullable().openapi({
      description: "How long the site's writes were refused (from the old group's fence to the switch)",
    }),
    error: z
      .string()
      .nullable()
      .openapi({ description: "Why it rolled back, or the last failure being retried" }),
  })
  .openapi("GroupMove");

const GroupsSchema = z
  .object({
    data: z.array(
      z.object({
        group: z.string(),
        sites: z.number().int().openapi({ description: "Sites placed in the group" }),
      }),
    ),
  })
  .openapi("ContentGroups");

const startRoute = createRoute({
  method: "post",
  path: "/api/v1/platform/sites/{site_id}/group-move",
  summary: "Operator: move a site's content to another content group (online; beyond the spec, issue 38)",
  request: { params: SiteIdParam, body: jsonBody(MoveBody) },
  responses: {
    202: json(MoveSchema, "The move started; follow it with GET"),
    ...problemResponses({
      400: "site_id is neither ULID nor UUID, or an invalid body (unknown field, unknown group)",
      403: "FORBIDDEN: operator_admin needed",
      404: "NOT_FOUND: no such site (or content never met it)",
      409: "SITE_MOVE_CONFLICT: the site is in that group already, or a move of it is running",
      413: "PAYLOAD_TOO_LARGE: body over 16 KiB",
    }),
  },
});

const progressRoute = createRoute({
  method: "get",
  path: "/api/v1/platform/sites/{site_id}/group-move",
  summary: "Operator: the site's latest move between content groups (beyond the spec, issue 38)",
  request: { params: SiteIdParam },
  responses: {
    200: json(MoveSchema, "The latest move, running or finished"),
    ...problemResponses({
      400: "site_id is neither ULID nor UUID",
      403: "FORBIDDEN: no operator capability",
      404: "NOT_FOUND: no such site, or it never moved",
    }),
  },
});

const rollbackRoute = createRoute({
  method: "post",
  path: "/api/v1/platform/sites/{site_id}/group-move/rollback",
  summary: "Operator: roll the site's move back, until its switch (beyond the spec, issue 38)",
  request: { params: SiteIdParam },
  responses: {
    202: json(MoveSchema, "The move is rolling back (or rolled back already)"),
    ...problemResponses({
      400: "site_id is neither ULID nor UUID",
      403: "FORBIDDEN: operator_admin needed",
      404: "NOT_FOUND: no such site, or it never moved",
      409: "SITE_MOVE_CONFLICT: the move has switched groups already (moving back is a new move)",
    }),
  },
});

const groupsRoute = createRoute({
  method: "get",
  path: "/api/v1/platform/content-groups",
  summary: "Operator: the content groups and how many sites each holds (beyond the spec, issue 38)",
  responses: {
    200: json(GroupsSchema, "Every configured group, in order"),
    ...problemResponses({ 403: "FORBIDDEN: no operator capability" }),
  },
});

export function registerGroupMoveRoutes(app: OpenAPIHono<SitesAppEnv>) {
  app.openapi(startRoute, async (c) => {
    const operator = requireOperator(c, "write");
    const id = parseSiteId(c.req.valid("param").site_id);
    const { to } = c.req.valid("json");
    if (!GROUP.test(to)) fail("BAD_REQUEST", "to: a content group name (g000, g001, …)");
    await siteForOperator(c.env, id);
    const started = await c
      .get("services")
      .content.startSiteMove({ site_id: id, to, requested_by: operator.userId });
    if (started.ok) {
      await auditGroupMove(c.env, operator, id, "group_move", started.move);
      return c.json(started.move, 202);
    }
    if (started.reason === "unknown_site") fail("NOT_FOUND", "Content holds nothing of this site.");
    if (started.reason === "unknown_group")
      fail("BAD_REQUEST", `to: ${to} is not a configured content group`);
    if (started.reason === "same_group") fail("SITE_MOVE_CONFLICT", `The site is in group ${to} already.`);
    return fail("SITE_MOVE_CONFLICT", "A move of this site is running.");
  });

  app.openapi(progressRoute, async (c) => {
    requireOperator(c, "read");
    const id = parseSiteId(c.req.valid("param").site_id);
    await siteForOperator(c.env, id);
    const move = await c.get("services").content.siteMove({ site_id: id });
    if (!move) return fail("NOT_FOUND", "This site never moved between content groups.");
    return c.json(move, 200);
  });

  app.openapi(rollbackRoute, async (c) => {
    const operator = requireOperator(c, "write");
    const id = parseSiteId(c.req.valid("param").site_id);
    await siteForOperator(c.env, id);
    const rolled = await c.get("services").content.rollBackSiteMove({ site_id: id });
    if (rolled.ok) {
      await auditGroupMove(c.env, operator, id, "group_move_rollback", rolled.move);
      return c.json(rolled.move, 202);
    }
    if (rolled.reason === "no_move") fail("NOT_FOUND", "This site never moved between content groups.");
    return fail("SITE_MOVE_CONFLICT", "The move has switched groups already; moving back is a new move.");
  });

  app.use("/api/v1/platform/content-groups", async (c, next) => {
    requireOperator(c, "read");
    await next();
  });
  app.openapi(groupsRoute, async (c) => {
    requireOperator(c, "read");
    return c.json({ data: await c.get("services").content.contentGroups() }, 200);
  });
}
