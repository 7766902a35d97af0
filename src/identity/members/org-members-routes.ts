/** Organization members: list (any member), add/change/remove (members:manage, owner rules). */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { problemResponses } from "../../lib/app";
import { bearerAuth } from "../core/auth";
import type { AppContext, AppEnv } from "../core/context";
import { jsonBody, jsonResponse, MemberSchema, parseEmail, parseOrgId, parseUserId } from "../core/schemas";
import { problem } from "../errors";
import {
  changeOrgMemberRole,
  grantOrgMembership,
  memberItems,
  removeOrgMemberAndGrants,
  requireOrgMember,
  requireOwnerToGrant,
} from "./members";
import { resolveRole } from "./roles";
import { listOrgMembers, type OrgMember, orgMembership } from "./store";

const MEMBER_LIST_LIMIT = 100;

const Member = MemberSchema.openapi("OrgMember");

const OrgParam = z.object({ org_id: z.string().max(64) });
const MemberParam = z.object({ org_id: z.string().max(64), user_id: z.string().max(64) });

function requireMember(c: AppContext, orgId: string, permission?: string): Promise<OrgMember> {
  return requireOrgMember(c.env.DB, orgId, c.get("auth").userId, {
    permission,
    notFoundDetail: "No such organization.",
  });
}

const NOT_MEMBER = () => problem("NOT_MEMBER", "That user is not a member.");

const listOrgMembersRoute = createRoute({
  method: "get",
  path: "/api/v1/auth/orgs/{org_id}/members",
  tags: ["Organization members"],
  summary: "Organization-level members (any member may read; up to 100)",
  ...bearerAuth,
  request: { params: OrgParam },
  responses: {
    200: jsonResponse("Members", z.object({ items: z.array(Member) })),
    ...problemResponses({
      400: "BAD_ORG",
      401: "UNAUTHENTICATED, TOKEN_EXPIRED",
      404: "NOT_FOUND",
      500: "LOOKUP_FAILED",
    }),
  },
});

const addOrgMemberRoute = createRoute({
  method: "post",
  path: "/api/v1/auth/orgs/{org_id}/members",
  tags: ["Organization members"],
  summary: "Grant membership to an account (201), change an existing member's role (200), or invite (202)",
  ...bearerAuth,
  request: {
    params: OrgParam,
    ...jsonBody(
      z.strictObject({ email: z.string().max(320), role: z.string().max(64) }).openapi("AddOrgMemberRequest"),
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
      401: "UNAUTHENTICATED, TOKEN_EXPIRED",
      403: "FORBIDDEN, OWNER_ONLY, OWNER_PROTECTED",
      404: "NOT_FOUND, USER_NOT_FOUND",
      409: "LAST_ORG_OWNER",
    }),
  },
});

const patchOrgMemberRoute = createRoute({
  method: "patch",
  path: "/api/v1/auth/orgs/{org_id}/members/{user_id}",
  tags: ["Organization members"],
  summary: "Change a member's role (non-member caller: 404 before any 403)",
  ...bearerAuth,
  request: {
    params: MemberParam,
    ...jsonBody(z.strictObject({ role: z.string().max(64) }).openapi("ChangeRoleRequest")),
  },
  responses: {
    200: jsonResponse("Changed", Member.omit({ joined_at: true, email: true })),
    ...problemResponses({
      400: "BAD_ORG, BAD_ID, BAD_REQUEST, BAD_ROLE, ROLE_NOT_FOUND",
      401: "UNAUTHENTICATED, TOKEN_EXPIRED",
      403: "FORBIDDEN, OWNER_ONLY, OWNER_PROTECTED",
      404: "NOT_FOUND, NOT_MEMBER",
      409: "LAST_ORG_OWNER",
    }),
  },
});

const removeOrgMemberRoute = createRoute({
  method: "delete",
  path: "/api/v1/auth/orgs/{org_id}/members/{user_id}",
  tags: ["Organization members"],
  summary: "Remove a member (owners only remove owners, oneself included; the last owner never leaves)",
  ...bearerAuth,
  request: { params: MemberParam },
  responses: {
    204: { description: "Removed" },
    ...problemResponses({
      400: "BAD_ORG, BAD_ID",
      401: "UNAUTHENTICATED, TOKEN_EXPIRED",
      403: "FORBIDDEN, OWNER_PROTECTED",
      404: "NOT_FOUND, NOT_MEMBER",
      409: "LAST_ORG_OWNER",
    }),
  },
});

export function registerOrgMemberRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(listOrgMembersRoute, async (c) => {
    const orgId = parseOrgId(c.req.valid("param").org_id);
    await requireMember(c, orgId);
    const { results } = await listOrgMembers(c.env.DB, orgId, MEMBER_LIST_LIMIT);
    return c.json({ items: memberItems(results) }, 200);
  });

  app.openapi(addOrgMemberRoute, async (c) => {
    const orgId = parseOrgId(c.req.valid("param").org_id);
    const me = await requireMember(c, orgId, "members:manage");
    const body = c.req.valid("json");
    const address = parseEmail(body.email, "BAD_EMAIL");
    const role = await resolveRole(c.env.DB, orgId, "org", body.role);
    requireOwnerToGrant(me, role);
    const actorUserId = c.get("auth").userId;
    const granted = await grantOrgMembership(c.env, c.get("services"), orgId, {
      actorUserId,
      me,
      address,
      role,
    });
    if (granted.status === 202) return c.json(granted.body, 202);
    return granted.status === 201 ? c.json(granted.body, 201) : c.json(granted.body, 200);
  });

  app.openapi(patchOrgMemberRoute, async (c) => {
    const params = c.req.valid("param");
    const orgId = parseOrgId(params.org_id);
    const userId = parseUserId(params.user_id);
    const me = await requireMember(c, orgId, "members:manage");
    const role = await resolveRole(c.env.DB, orgId, "org", c.req.valid("json").role);
    const target = await orgMembership(c.env.DB, orgId, userId);
    if (!target) throw NOT_MEMBER();
    requireOwnerToGrant(me, role);
    await changeOrgMemberRole(c.env, c.get("services"), orgId, {
      actorUserId: c.get("auth").userId,
      me,
      userId,
      target,
      role,
    });
    return c.json({ user_id: userId, role: role.slug, is_owner: role.isSystem }, 200);
  });

  app.openapi(removeOrgMemberRoute, async (c) => {
    const params = c.req.valid("param");
    const orgId = parseOrgId(params.org_id);
    const userId = parseUserId(params.user_id);
    const me = await requireMember(c, orgId, "members:manage");
    const target = await orgMembership(c.env.DB, orgId, userId);
    if (!target) throw NOT_MEMBER();
    const actorUserId = c.get("auth").userId;
    await removeOrgMemberAndGrants(c.env, c.get("services"), orgId, { actorUserId, me, userId, target });
    return c.body(null, 204);
  });
}
