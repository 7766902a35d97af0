/**
 * Site members and site invitations. Authorization: site_owner of the site (a stored site membership
 * with the structural owner role) or members:manage in the organization owning the site; anyone else
 * gets the same opaque 404 as for a site that does not exist.
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { problemResponses } from "../../lib/app";
import { parseId, parseUlid } from "../../lib/ids";
import { ApiError } from "../../lib/problem";
import { rpc, type SitesRpc } from "../../lib/rpc";
import { requireBearer } from "../auth";
import type { AppContext, AppEnv } from "../context";
import { clientIp } from "../context";
import { nowIso } from "../crypto";
import { enforceRateLimit } from "../guards";
import {
  createInvitation,
  INVITATION_COLUMNS,
  type InvitationRow,
  invitationView,
  mailInvitation,
  rotateInvitation,
} from "../invitations";
import { orgMembership, resolveRole, siteOwnerRoleSql } from "../roles";
import { bearerSecurity, jsonBody, jsonResponse, parseEmail } from "./schemas";

const NOT_FOUND = () => new ApiError(404, "NOT_FOUND", { detail: "No such site." });

function parseSiteId(raw: string): string {
  const id = parseId(raw);
  if (!id) throw new ApiError(400, "BAD_ID", { detail: "site_id must be a ULID or UUID." });
  return id;
}

/** The site's organization when the caller may administer its members; otherwise an opaque 404. */
async function authorizeSite(c: AppContext, siteId: string): Promise<{ orgId: string }> {
  let site: { org_id: string; status: string } | null;
  try {
    site = await rpc<SitesRpc>(c.env.SITES).siteOrg(siteId);
  } catch (err) {
    // Fail closed: without the site registry nobody is authorized.
    throw new ApiError(500, "LOOKUP_FAILED", {
      detail: "The site registry is unavailable.",
      reason: (err as Error).message,
    });
  }
  if (!site) throw NOT_FOUND();
  const { userId } = c.get("auth");
  const me = await orgMembership(c.env.DB, site.org_id, userId);
  if (me?.permissions.includes("members:manage")) return { orgId: site.org_id };
  const owner = await c.env.DB.prepare(
    `SELECT 1 AS ok FROM site_memberships sm WHERE sm.site_id = ? AND sm.user_id = ? AND ${siteOwnerRoleSql("sm")}`,
  )
    .bind(siteId, userId)
    .first();
  if (owner) return { orgId: site.org_id };
  throw NOT_FOUND();
}

const SiteMember = z
  .object({
    user_id: z.string(),
    email: z.string(),
    role: z.string(),
    is_owner: z.boolean(),
    joined_at: z.string(),
  })
  .openapi("SiteMember");
const SiteParam = z.object({ site_id: z.string().max(64) });
const SiteMemberParam = z.object({ site_id: z.string().max(64), user_id: z.string().max(64) });
const SiteInviteParam = z.object({ site_id: z.string().max(64), id: z.string().max(64) });
const LAST_OWNER = () => new ApiError(409, "LAST_SITE_OWNER", { detail: "The site must keep an owner." });

function invitesEnabled(c: AppContext) {
  if (c.env.INVITES_ENABLED !== "true")
    throw new ApiError(501, "INVITES_DISABLED", { detail: "Invitations are disabled." });
}

export function registerSiteMemberRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/auth/sites/{site_id}/members",
      tags: ["Site members"],
      summary: "People with a stored site membership (not those reaching the site by organization role)",
      security: bearerSecurity,
      middleware: [requireBearer] as const,
      request: { params: SiteParam },
      responses: {
        200: jsonResponse("Members", z.object({ items: z.array(SiteMember) })),
        ...problemResponses({ 400: "BAD_ID", 404: "NOT_FOUND", 500: "LOOKUP_FAILED" }),
      },
    }),
    async (c) => {
      const siteId = parseSiteId(c.req.valid("param").site_id);
      await authorizeSite(c, siteId);
      const { results } = await c.env.DB.prepare(
        `SELECT sm.user_id, sm.role, sm.created_at, e.address, ${siteOwnerRoleSql("sm")} AS is_owner
         FROM site_memberships sm LEFT JOIN email_addresses e ON e.user_id = sm.user_id AND e.is_primary = 1
         WHERE sm.site_id = ? ORDER BY sm.created_at, sm.user_id LIMIT 500`,
      )
        .bind(siteId)
        .all<{
          user_id: string;
          role: string;
          created_at: string;
          address: string | null;
          is_owner: number;
        }>();
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
      method: "patch",
      path: "/api/v1/auth/sites/{site_id}/members/{user_id}",
      tags: ["Site members"],
      summary: "Change a site member's role (site-scope roles only; the last owner is never demoted)",
      security: bearerSecurity,
      middleware: [requireBearer] as const,
      request: {
        params: SiteMemberParam,
        ...jsonBody(z.object({ role: z.string().max(64) }).openapi("SiteRoleRequest")),
      },
      responses: {
        200: jsonResponse(
          "Changed",
          z.object({ user_id: z.string(), role: z.string(), is_owner: z.boolean() }),
        ),
        ...problemResponses({
          400: "BAD_ID, BAD_REQUEST, BAD_ROLE, ROLE_NOT_FOUND",
          404: "NOT_FOUND (no access, opaque), NOT_MEMBER",
          409: "LAST_SITE_OWNER",
          500: "LOOKUP_FAILED",
        }),
      },
    }),
    async (c) => {
      const params = c.req.valid("param");
      const siteId = parseSiteId(params.site_id);
      const userId = parseUlid(params.user_id);
      if (!userId) throw new ApiError(400, "BAD_ID", { detail: "user_id must be a ULID." });
      const { orgId } = await authorizeSite(c, siteId);
      const role = await resolveRole(c.env.DB, orgId, "site", c.req.valid("json").role);
      const res = await c.env.DB.prepare(
        `UPDATE site_memberships SET role = ?1 WHERE site_id = ?2 AND user_id = ?3
           AND (?4 = 1 OR NOT ${siteOwnerRoleSql("site_memberships")}
                OR (SELECT COUNT(*) FROM site_memberships m WHERE m.site_id = ?2 AND m.user_id != ?3 AND ${siteOwnerRoleSql("m")}) > 0)`,
      )
        .bind(role.slug, siteId, userId, role.isSystem ? 1 : 0)
        .run();
      if (res.meta.changes !== 1) {
        const exists = await c.env.DB.prepare(
          "SELECT 1 AS ok FROM site_memberships WHERE site_id = ? AND user_id = ?",
        )
          .bind(siteId, userId)
          .first();
        if (!exists)
          throw new ApiError(404, "NOT_MEMBER", { detail: "That user is not a member of the site." });
        throw LAST_OWNER();
      }
      return c.json({ user_id: userId, role: role.slug, is_owner: role.isSystem }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/api/v1/auth/sites/{site_id}/members/{user_id}",
      tags: ["Site members"],
      summary: "Remove a site member (idempotent; never the last owner, oneself included)",
      security: bearerSecurity,
      middleware: [requireBearer] as const,
      request: { params: SiteMemberParam },
      responses: {
        204: { description: "Removed (also for a non-member)" },
        ...problemResponses({
          400: "BAD_ID",
          404: "NOT_FOUND",
          409: "LAST_SITE_OWNER",
          500: "LOOKUP_FAILED",
        }),
      },
    }),
    async (c) => {
      const params = c.req.valid("param");
      const siteId = parseSiteId(params.site_id);
      const userId = parseUlid(params.user_id);
      if (!userId) throw new ApiError(400, "BAD_ID", { detail: "user_id must be a ULID." });
      await authorizeSite(c, siteId);
      // The owner count and the delete are one statement: nothing is removed unless another owner remains.
      const res = await c.env.DB.prepare(
        `DELETE FROM site_memberships WHERE site_id = ?1 AND user_id = ?2
           AND (NOT ${siteOwnerRoleSql("site_memberships")}
                OR (SELECT COUNT(*) FROM site_memberships m WHERE m.site_id = ?1 AND m.user_id != ?2 AND ${siteOwnerRoleSql("m")}) > 0)`,
      )
        .bind(siteId, userId)
        .run();
      if (res.meta.changes === 0) {
        const exists = await c.env.DB.prepare(
          "SELECT 1 AS ok FROM site_memberships WHERE site_id = ? AND user_id = ?",
        )
          .bind(siteId, userId)
          .first();
        if (exists) throw LAST_OWNER();
      }
      return c.body(null, 204);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/auth/sites/{site_id}/invitations",
      tags: ["Site invitations"],
      summary: "Pending invitations of this site only",
      security: bearerSecurity,
      middleware: [requireBearer] as const,
      request: { params: SiteParam },
      responses: {
        200: jsonResponse("Invitations", z.object({ items: z.array(z.record(z.string(), z.unknown())) })),
        ...problemResponses({ 400: "BAD_ID", 404: "NOT_FOUND", 501: "INVITES_DISABLED" }),
      },
    }),
    async (c) => {
      const siteId = parseSiteId(c.req.valid("param").site_id);
      await authorizeSite(c, siteId);
      invitesEnabled(c);
      const { results } = await c.env.DB.prepare(
        `SELECT ${INVITATION_COLUMNS} FROM invitations
         WHERE site_id = ? AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > ? ORDER BY created_at DESC LIMIT 200`,
      )
        .bind(siteId, nowIso())
        .all<InvitationRow>();
      return c.json({ items: results.map(invitationView) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/auth/sites/{site_id}/invitations",
      tags: ["Site invitations"],
      summary: "Invite to the site (org_id derived from the site; no scope field); e-mailed",
      security: bearerSecurity,
      middleware: [requireBearer] as const,
      request: {
        params: SiteParam,
        ...jsonBody(
          z.object({ email: z.string().max(320), role: z.string().max(64) }).openapi("SiteInvitationRequest"),
        ),
      },
      responses: {
        202: jsonResponse("Created", z.object({ invitation_id: z.string(), email_sent: z.boolean() })),
        ...problemResponses({
          400: "BAD_ID, BAD_EMAIL, BAD_ROLE, ROLE_NOT_FOUND",
          404: "NOT_FOUND",
          501: "INVITES_DISABLED",
        }),
      },
    }),
    async (c) => {
      const siteId = parseSiteId(c.req.valid("param").site_id);
      const { orgId } = await authorizeSite(c, siteId);
      invitesEnabled(c);
      const body = c.req.valid("json");
      const email = parseEmail(body.email, "BAD_EMAIL");
      const role = await resolveRole(c.env.DB, orgId, "site", body.role);
      const invitation = await createInvitation(c, { orgId, siteId, email, role: role.slug });
      return c.json({ invitation_id: invitation.id, email_sent: invitation.emailSent }, 202);
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/api/v1/auth/sites/{site_id}/invitations/{id}",
      tags: ["Site invitations"],
      summary: "Revoke a pending site invitation (another site's id is not found)",
      security: bearerSecurity,
      middleware: [requireBearer] as const,
      request: { params: SiteInviteParam },
      responses: {
        204: { description: "Revoked" },
        ...problemResponses({ 404: "NOT_FOUND", 501: "INVITES_DISABLED" }),
      },
    }),
    async (c) => {
      const params = c.req.valid("param");
      const siteId = parseSiteId(params.site_id);
      await authorizeSite(c, siteId);
      invitesEnabled(c);
      const id = parseUlid(params.id);
      const res = id
        ? await c.env.DB.prepare(
            "UPDATE invitations SET revoked_at = ? WHERE id = ? AND site_id = ? AND accepted_at IS NULL AND revoked_at IS NULL",
          )
            .bind(nowIso(), id, siteId)
            .run()
        : null;
      if (res?.meta.changes !== 1) throw new ApiError(404, "NOT_FOUND", { detail: "No pending invitation." });
      return c.body(null, 204);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/auth/sites/{site_id}/invitations/{id}/resend",
      tags: ["Site invitations"],
      summary: "Rotate the token and restart the expiry, scoped by site",
      security: bearerSecurity,
      middleware: [requireBearer] as const,
      request: { params: SiteInviteParam },
      responses: {
        202: jsonResponse("Sent", z.object({ email_sent: z.boolean(), expires_at: z.string() })),
        ...problemResponses({
          400: "BAD_ID",
          404: "NOT_FOUND",
          409: "INVITATION_ALREADY_ACCEPTED",
          429: "RATE_LIMITED",
          501: "INVITES_DISABLED",
        }),
      },
    }),
    async (c) => {
      const params = c.req.valid("param");
      const siteId = parseSiteId(params.site_id);
      await authorizeSite(c, siteId);
      invitesEnabled(c);
      const id = parseUlid(params.id);
      const found = id
        ? await c.env.DB.prepare("SELECT email FROM invitations WHERE id = ? AND site_id = ?")
            .bind(id, siteId)
            .first<{ email: string }>()
        : null;
      if (!id || !found) throw new ApiError(404, "NOT_FOUND", { detail: "No such invitation." });
      await enforceRateLimit(c.env, "invite_resend_ip", clientIp(c));
      await enforceRateLimit(c.env, "invite_resend_mailbox", found.email);
      const rotated = await rotateInvitation(c, id, "AND site_id = ?", [siteId]);
      if (rotated === "accepted") {
        throw new ApiError(409, "INVITATION_ALREADY_ACCEPTED", {
          detail: "The invitation was already accepted.",
        });
      }
      if (!rotated) throw new ApiError(404, "NOT_FOUND", { detail: "No such invitation." });
      return c.json(
        {
          email_sent: await mailInvitation(c, rotated.row.email, rotated.token),
          expires_at: rotated.row.expires_at,
        },
        202,
      );
    },
  );
}
