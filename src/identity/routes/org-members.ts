/** Organization members: list (any member), add/change/remove (members:manage, owner rules). */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { problemResponses } from "../../lib/app";
import { parseUlid } from "../../lib/ids";
import { ApiError } from "../../lib/problem";
import { requireBearer } from "../auth";
import type { AppContext, AppEnv } from "../context";
import { nowIso } from "../crypto";
import { createInvitation } from "../invitations";
import { type OrgMember, orgMembership, ownerRoleSql, resolveRole } from "../roles";
import { findVerifiedOwner } from "../store";
import { bearerSecurity, jsonBody, jsonResponse, parseEmail } from "./schemas";

const MEMBER_LIST_LIMIT = 100;

const Member = z
  .object({
    user_id: z.string(),
    email: z.string(),
    role: z.string(),
    is_owner: z.boolean(),
    joined_at: z.string(),
  })
  .openapi("OrgMember");

const OrgParam = z.object({ org_id: z.string().max(64) });
const MemberParam = z.object({ org_id: z.string().max(64), user_id: z.string().max(64) });

function parseOrgId(raw: string): string {
  const id = parseUlid(raw);
  if (!id) throw new ApiError(400, "BAD_ORG", { detail: "org_id must be a ULID." });
  return id;
}

function parseUserId(raw: string): string {
  const id = parseUlid(raw);
  if (!id) throw new ApiError(400, "BAD_ID", { detail: "user_id must be a ULID." });
  return id;
}

/** Two rungs: a non-member gets an opaque 404, a member without the permission 403. */
async function requireMember(c: AppContext, orgId: string, permission?: string): Promise<OrgMember> {
  const me = await orgMembership(c.env.DB, orgId, c.get("auth").userId);
  if (!me) throw new ApiError(404, "NOT_FOUND", { detail: "No such organization." });
  if (permission && !me.permissions.includes(permission)) {
    throw new ApiError(403, "FORBIDDEN", { detail: `Requires ${permission}.` });
  }
  return me;
}

/** After an owner change: the titular owner passes to the oldest remaining owner when it no longer is one. */
function titularFixup(db: D1Database, orgId: string) {
  return db
    .prepare(
      `UPDATE orgs SET owner_user_id = (
         SELECT m.user_id FROM org_memberships m WHERE m.org_id = orgs.id AND ${ownerRoleSql("m")}
         ORDER BY m.created_at, m.user_id LIMIT 1)
       WHERE id = ? AND NOT EXISTS (
         SELECT 1 FROM org_memberships m WHERE m.org_id = orgs.id AND m.user_id = orgs.owner_user_id AND ${ownerRoleSql("m")})`,
    )
    .bind(orgId);
}

/**
 * Changes a member's role in one batch; the UPDATE itself refuses to demote the last owner (D1 runs it
 * atomically, so two concurrent demotions cannot both pass). Returns false when that guard refused.
 */
async function changeRole(db: D1Database, orgId: string, userId: string, role: string, toOwner: boolean) {
  const [update] = await db.batch([
    db
      .prepare(
        `UPDATE org_memberships SET role = ?1 WHERE org_id = ?2 AND user_id = ?3
           AND (?4 = 1 OR NOT ${ownerRoleSql("org_memberships")}
                OR (SELECT COUNT(*) FROM org_memberships m WHERE m.org_id = ?2 AND m.user_id != ?3 AND ${ownerRoleSql("m")}) > 0)`,
      )
      .bind(role, orgId, userId, toOwner ? 1 : 0),
    titularFixup(db, orgId),
  ]);
  return (update?.meta.changes ?? 0) === 1;
}

const LAST_OWNER = () =>
  new ApiError(409, "LAST_ORG_OWNER", { detail: "The organization must keep an owner." });

export function registerOrgMemberRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/auth/orgs/{org_id}/members",
      tags: ["Organization members"],
      summary: "Organization-level members (any member may read; up to 100)",
      security: bearerSecurity,
      middleware: [requireBearer] as const,
      request: { params: OrgParam },
      responses: {
        200: jsonResponse("Members", z.object({ items: z.array(Member) })),
        ...problemResponses({ 400: "BAD_ORG", 401: "UNAUTHORIZED", 404: "NOT_FOUND", 500: "LOOKUP_FAILED" }),
      },
    }),
    async (c) => {
      const orgId = parseOrgId(c.req.valid("param").org_id);
      await requireMember(c, orgId);
      const { results } = await c.env.DB.prepare(
        `SELECT m.user_id, m.role, m.created_at, e.address, ${ownerRoleSql("m")} AS is_owner
         FROM org_memberships m
         LEFT JOIN email_addresses e ON e.user_id = m.user_id AND e.is_primary = 1
         WHERE m.org_id = ? ORDER BY m.created_at, m.user_id LIMIT ?`,
      )
        .bind(orgId, MEMBER_LIST_LIMIT)
        .all<{
          user_id: string;
          role: string;
          created_at: string;
          address: string | null;
          is_owner: number;
        }>();
      // Never a list with anonymous rows: a member without a resolvable address fails the whole answer.
      if (results.some((r) => !r.address)) {
        throw new ApiError(500, "LOOKUP_FAILED", { detail: "A member's e-mail could not be resolved." });
      }
      return c.json(
        {
          items: results.map((r) => ({
            user_id: r.user_id,
            email: r.address!,
            role: r.role,
            is_owner: r.is_owner === 1,
            joined_at: r.created_at,
          })),
        },
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/auth/orgs/{org_id}/members",
      tags: ["Organization members"],
      summary:
        "Grant membership to an account (201), change an existing member's role (200), or invite (202)",
      security: bearerSecurity,
      middleware: [requireBearer] as const,
      request: {
        params: OrgParam,
        ...jsonBody(
          z.object({ email: z.string().max(320), role: z.string().max(64) }).openapi("AddOrgMemberRequest"),
        ),
      },
      responses: {
        200: jsonResponse("Role changed", Member.omit({ joined_at: true })),
        201: jsonResponse("Granted", Member.omit({ joined_at: true })),
        202: jsonResponse(
          "Invitation e-mailed",
          z.object({ invitation_id: z.string(), email_sent: z.boolean() }),
        ),
        ...problemResponses({
          400: "BAD_ORG, BAD_REQUEST, BAD_ROLE, BAD_EMAIL, ROLE_NOT_FOUND",
          401: "UNAUTHORIZED",
          403: "FORBIDDEN, OWNER_ONLY, OWNER_PROTECTED",
          404: "NOT_FOUND, USER_NOT_FOUND",
          409: "LAST_ORG_OWNER",
        }),
      },
    }),
    async (c) => {
      const orgId = parseOrgId(c.req.valid("param").org_id);
      const me = await requireMember(c, orgId, "members:manage");
      const body = c.req.valid("json");
      const address = parseEmail(body.email, "BAD_EMAIL");
      const role = await resolveRole(c.env.DB, orgId, "org", body.role);
      if (role.isSystem && !me.isOwner)
        throw new ApiError(403, "OWNER_ONLY", { detail: "Only an owner grants the owner role." });
      const target = await findVerifiedOwner(c.env.DB, address);
      if (!target) {
        if (c.env.INVITES_ENABLED !== "true")
          throw new ApiError(404, "USER_NOT_FOUND", { detail: "No account with that address." });
        const invitation = await createInvitation(c, {
          orgId,
          siteId: null,
          email: address,
          role: role.slug,
        });
        return c.json({ invitation_id: invitation.id, email_sent: invitation.emailSent }, 202);
      }
      const existing = await orgMembership(c.env.DB, orgId, target.user_id);
      if (!existing) {
        await c.env.DB.batch([
          c.env.DB.prepare(
            "INSERT INTO org_memberships (org_id, user_id, role, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
          ).bind(orgId, target.user_id, role.slug, nowIso()),
          titularFixup(c.env.DB, orgId),
        ]);
        return c.json(
          { user_id: target.user_id, email: address, role: role.slug, is_owner: role.isSystem },
          201,
        );
      }
      if (existing.isOwner && !me.isOwner) {
        throw new ApiError(403, "OWNER_PROTECTED", { detail: "Only an owner changes another owner." });
      }
      if (!(await changeRole(c.env.DB, orgId, target.user_id, role.slug, role.isSystem))) throw LAST_OWNER();
      return c.json(
        { user_id: target.user_id, email: address, role: role.slug, is_owner: role.isSystem },
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "patch",
      path: "/api/v1/auth/orgs/{org_id}/members/{user_id}",
      tags: ["Organization members"],
      summary: "Change a member's role (non-member caller: 404 before any 403)",
      security: bearerSecurity,
      middleware: [requireBearer] as const,
      request: {
        params: MemberParam,
        ...jsonBody(z.object({ role: z.string().max(64) }).openapi("ChangeRoleRequest")),
      },
      responses: {
        200: jsonResponse("Changed", Member.omit({ joined_at: true, email: true })),
        ...problemResponses({
          400: "BAD_ORG, BAD_ID, BAD_REQUEST, BAD_ROLE, ROLE_NOT_FOUND",
          401: "UNAUTHORIZED",
          403: "FORBIDDEN, OWNER_ONLY, OWNER_PROTECTED",
          404: "NOT_FOUND, NOT_MEMBER",
          409: "LAST_ORG_OWNER",
        }),
      },
    }),
    async (c) => {
      const params = c.req.valid("param");
      const orgId = parseOrgId(params.org_id);
      const userId = parseUserId(params.user_id);
      const me = await requireMember(c, orgId, "members:manage");
      const role = await resolveRole(c.env.DB, orgId, "org", c.req.valid("json").role);
      const target = await orgMembership(c.env.DB, orgId, userId);
      if (!target) throw new ApiError(404, "NOT_MEMBER", { detail: "That user is not a member." });
      if (role.isSystem && !me.isOwner)
        throw new ApiError(403, "OWNER_ONLY", { detail: "Only an owner grants the owner role." });
      if (target.isOwner && !me.isOwner) {
        throw new ApiError(403, "OWNER_PROTECTED", { detail: "Only an owner changes another owner." });
      }
      if (!(await changeRole(c.env.DB, orgId, userId, role.slug, role.isSystem))) throw LAST_OWNER();
      return c.json({ user_id: userId, role: role.slug, is_owner: role.isSystem }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/api/v1/auth/orgs/{org_id}/members/{user_id}",
      tags: ["Organization members"],
      summary: "Remove a member (owners only remove owners, oneself included; the last owner never leaves)",
      security: bearerSecurity,
      middleware: [requireBearer] as const,
      request: { params: MemberParam },
      responses: {
        204: { description: "Removed" },
        ...problemResponses({
          400: "BAD_ORG, BAD_ID",
          401: "UNAUTHORIZED",
          403: "FORBIDDEN, OWNER_PROTECTED",
          404: "NOT_FOUND, NOT_MEMBER",
          409: "LAST_ORG_OWNER",
        }),
      },
    }),
    async (c) => {
      const params = c.req.valid("param");
      const orgId = parseOrgId(params.org_id);
      const userId = parseUserId(params.user_id);
      const me = await requireMember(c, orgId, "members:manage");
      const target = await orgMembership(c.env.DB, orgId, userId);
      if (!target) throw new ApiError(404, "NOT_MEMBER", { detail: "That user is not a member." });
      if (target.isOwner && !me.isOwner) {
        throw new ApiError(403, "OWNER_PROTECTED", { detail: "Only an owner removes an owner." });
      }
      const [removed] = await c.env.DB.batch([
        c.env.DB.prepare(
          `DELETE FROM org_memberships WHERE org_id = ?1 AND user_id = ?2
             AND (NOT ${ownerRoleSql("org_memberships")}
                  OR (SELECT COUNT(*) FROM org_memberships m WHERE m.org_id = ?1 AND m.user_id != ?2 AND ${ownerRoleSql("m")}) > 0)`,
        ).bind(orgId, userId),
        titularFixup(c.env.DB, orgId),
      ]);
      if ((removed?.meta.changes ?? 0) !== 1) throw LAST_OWNER();
      return c.body(null, 204);
    },
  );
}
