/**
 * Site members and site invitations. Authorization: site_owner of the site (a stored site membership
 * with the structural owner role) or members:manage in the organization owning the site; anyone else
 * gets the same opaque 404 as for a site that does not exist.
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { problemResponses } from "../../lib/app";
import { parseId } from "../../lib/ids";
import { bearerAuth } from "../core/auth";
import type { AppContext, AppEnv } from "../core/context";
import { jsonBody, jsonResponse, MemberSchema, parseEmail, parseUserId } from "../core/schemas";
import { fail, problem } from "../errors";
import { orgEvent } from "../events/events";
import {
  createInvitation,
  pendingInvitationViews,
  requireInvitesEnabled,
  resendInvitation,
  revokeInvitation,
} from "../invitations/invitations";
import { requireSsoReach } from "../sso/org-wall";
import { endGrantsNow } from "./grant-endings";
import { memberItems } from "./members";
import { resolveRole } from "./roles";
import { siteOrg } from "./site-registry";
import { changeSiteRole, isSiteOwner, listSiteMembers, orgMembership, removeSiteMember } from "./store";

const NOT_FOUND = () => problem("NOT_FOUND", "No such site.");

function parseSiteId(raw: string): string {
  const id = parseId(raw);
  if (!id) fail("BAD_ID", "site_id must be a ULID or UUID.");
  return id;
}

/** The site's organization when the caller may administer its members; otherwise an opaque 404. */
async function authorizeSite(c: AppContext, siteId: string): Promise<{ orgId: string }> {
  const site = await siteOrg(c.env, siteId);
  if (!site) throw NOT_FOUND();
  await requireSsoReach(c.env, c.get("services"), c.get("auth"), site.org_id, "No such site.");
  const { userId } = c.get("auth");
  const me = await orgMembership(c.env.DB, site.org_id, userId);
  if (me?.permissions.includes("members:manage") || (await isSiteOwner(c.env.DB, siteId, userId))) {
    return { orgId: site.org_id };
  }
  throw NOT_FOUND();
}

/** Authorization first (opaque 404), then the feature switch (501). */
async function authorizeSiteInvites(c: AppContext, rawSiteId: string) {
  const siteId = parseSiteId(rawSiteId);
  const { orgId } = await authorizeSite(c, siteId);
  requireInvitesEnabled(c.env);
  return { orgId, siteId };
}

const SiteMember = MemberSchema.openapi("SiteMember");
const SiteParam = z.object({ site_id: z.string().max(64) });
const SiteMemberParam = z.object({ site_id: z.string().max(64), user_id: z.string().max(64) });
const SiteInviteParam = z.object({ site_id: z.string().max(64), id: z.string().max(64) });
const LAST_OWNER = () => problem("LAST_SITE_OWNER", "The site must keep an owner.");

/** The site's organization's event about one site member, written only if the write changed a row. */
function siteMemberEvent(
  c: AppContext,
  where: { orgId: string; siteId: string },
  type: "member_removed" | "role_changed",
  userId: string,
  role?: string,
) {
  const detail = role ? `${role} on site ${where.siteId}` : `site ${where.siteId}`;
  const fields = { actorUserId: c.get("auth").userId, target: userId, detail };
  return orgEvent(c.env.DB, where.orgId, type, fields, { ifChanged: true });
}

const listSiteMembersRoute = createRoute({
  method: "get",
  path: "/api/v1/auth/sites/{site_id}/members",
  tags: ["Site members"],
  summary: "People with a stored site membership (not those reaching the site by organization role)",
  ...bearerAuth,
  request: { params: SiteParam },
  responses: {
    200: jsonResponse("Members", z.object({ items: z.array(SiteMember) })),
    ...problemResponses({ 400: "BAD_ID", 404: "NOT_FOUND", 500: "LOOKUP_FAILED" }),
  },
});

const patchSiteMemberRoute = createRoute({
  method: "patch",
  path: "/api/v1/auth/sites/{site_id}/members/{user_id}",
  tags: ["Site members"],
  summary: "Change a site member's role (site-scope roles only; the last owner is never demoted)",
  ...bearerAuth,
  request: {
    params: SiteMemberParam,
    ...jsonBody(z.strictObject({ role: z.string().max(64) }).openapi("SiteRoleRequest")),
  },
  responses: {
    200: jsonResponse("Changed", z.object({ user_id: z.string(), role: z.string(), is_owner: z.boolean() })),
    ...problemResponses({
      400: "BAD_ID, BAD_REQUEST, BAD_ROLE, ROLE_NOT_FOUND",
      404: "NOT_FOUND (no access, opaque), NOT_MEMBER",
      409: "LAST_SITE_OWNER",
      500: "LOOKUP_FAILED",
    }),
  },
});

const removeSiteMemberRoute = createRoute({
  method: "delete",
  path: "/api/v1/auth/sites/{site_id}/members/{user_id}",
  tags: ["Site members"],
  summary: "Remove a site member (idempotent; never the last owner, oneself included)",
  ...bearerAuth,
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
});

const listSiteInvitationsRoute = createRoute({
  method: "get",
  path: "/api/v1/auth/sites/{site_id}/invitations",
  tags: ["Site invitations"],
  summary: "Pending invitations of this site only",
  ...bearerAuth,
  request: { params: SiteParam },
  responses: {
    200: jsonResponse("Invitations", z.object({ items: z.array(z.record(z.string(), z.unknown())) })),
    ...problemResponses({ 400: "BAD_ID", 404: "NOT_FOUND", 501: "INVITES_DISABLED" }),
  },
});

const createSiteInvitationRoute = createRoute({
  method: "post",
  path: "/api/v1/auth/sites/{site_id}/invitations",
  tags: ["Site invitations"],
  summary: "Invite to the site (org_id derived from the site; no scope field); e-mailed",
  ...bearerAuth,
  request: {
    params: SiteParam,
    ...jsonBody(
      z
        .strictObject({ email: z.string().max(320), role: z.string().max(64) })
        .openapi("SiteInvitationRequest"),
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
});

const revokeSiteInvitationRoute = createRoute({
  method: "delete",
  path: "/api/v1/auth/sites/{site_id}/invitations/{id}",
  tags: ["Site invitations"],
  summary: "Revoke a pending site invitation (another site's id is not found)",
  ...bearerAuth,
  request: { params: SiteInviteParam },
  responses: {
    204: { description: "Revoked" },
    ...problemResponses({ 404: "NOT_FOUND", 501: "INVITES_DISABLED" }),
  },
});

const resendSiteInvitationRoute = createRoute({
  method: "post",
  path: "/api/v1/auth/sites/{site_id}/invitations/{id}/resend",
  tags: ["Site invitations"],
  summary: "Rotate the token and restart the expiry, scoped by site",
  ...bearerAuth,
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
});

export function registerSiteMemberRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(listSiteMembersRoute, async (c) => {
    const siteId = parseSiteId(c.req.valid("param").site_id);
    await authorizeSite(c, siteId);
    const { results } = await listSiteMembers(c.env.DB, siteId, 500);
    return c.json({ items: memberItems(results) }, 200);
  });

  app.openapi(patchSiteMemberRoute, async (c) => {
    const params = c.req.valid("param");
    const siteId = parseSiteId(params.site_id);
    const userId = parseUserId(params.user_id);
    const { orgId } = await authorizeSite(c, siteId);
    const role = await resolveRole(c.env.DB, orgId, "site", c.req.valid("json").role);
    const event = siteMemberEvent(c, { orgId, siteId }, "role_changed", userId, role.slug);
    const outcome = await changeSiteRole(c.env.DB, siteId, userId, role.slug, role.isSystem, event);
    if (outcome === "not_member") fail("NOT_MEMBER", "That user is not a member of the site.");
    if (outcome === "last_owner") throw LAST_OWNER();
    await endGrantsNow(c.env, c.get("services"), userId);
    return c.json({ user_id: userId, role: role.slug, is_owner: role.isSystem }, 200);
  });

  app.openapi(removeSiteMemberRoute, async (c) => {
    const params = c.req.valid("param");
    const siteId = parseSiteId(params.site_id);
    const userId = parseUserId(params.user_id);
    const { orgId } = await authorizeSite(c, siteId);
    const event = siteMemberEvent(c, { orgId, siteId }, "member_removed", userId);
    if ((await removeSiteMember(c.env.DB, siteId, userId, event)) === "last_owner") throw LAST_OWNER();
    await endGrantsNow(c.env, c.get("services"), userId);
    return c.body(null, 204);
  });

  registerSiteInvitationRoutes(app);
}

/** The site's invitations (sub-resource `/invitations`), registered after its members. */
function registerSiteInvitationRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(listSiteInvitationsRoute, async (c) => {
    const { siteId } = await authorizeSiteInvites(c, c.req.valid("param").site_id);
    return c.json({ items: await pendingInvitationViews(c.env.DB, { siteId }) }, 200);
  });

  app.openapi(createSiteInvitationRoute, async (c) => {
    const { orgId, siteId } = await authorizeSiteInvites(c, c.req.valid("param").site_id);
    const body = c.req.valid("json");
    const email = parseEmail(body.email, "BAD_EMAIL");
    const role = await resolveRole(c.env.DB, orgId, "site", body.role);
    const invitation = await createInvitation(c.env, c.get("services"), c.get("auth").userId, {
      orgId,
      siteId,
      email,
      role: role.slug,
    });
    return c.json({ invitation_id: invitation.id, email_sent: invitation.emailSent }, 202);
  });

  app.openapi(revokeSiteInvitationRoute, async (c) => {
    const params = c.req.valid("param");
    const { orgId, siteId } = await authorizeSiteInvites(c, params.site_id);
    await revokeInvitation(c.env, c.get("auth").userId, params.id, { siteId }, orgId);
    return c.body(null, 204);
  });

  app.openapi(resendSiteInvitationRoute, async (c) => {
    const params = c.req.valid("param");
    const { siteId } = await authorizeSiteInvites(c, params.site_id);
    return c.json(await resendInvitation(c.env, c.get("services"), params.id, { siteId }), 202);
  });
}
