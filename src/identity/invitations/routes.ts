/** Organization invitations (list, revoke, resend) and invitation acceptance. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { problemResponses } from "../../lib/app";
import { bearerAuth } from "../core/auth";
import type { AppContext, AppEnv } from "../core/context";
import { jsonBody, jsonResponse, parseOrgId } from "../core/schemas";
import { enforceRateLimit } from "../login/guards";
import { sessionResponse } from "../login/session-response";
import { createSession } from "../login/sessions";
import { requireOrgMember } from "../members/members";
import {
  pendingInvitationViews,
  redeemInvitation,
  requireInvitesEnabled,
  resendInvitation,
  revokeInvitation,
} from "./invitations";

const Invitation = z
  .object({
    id: z.string(),
    scope: z.enum(["org", "site"]),
    org_id: z.string(),
    site_id: z.string().nullable(),
    email: z.string(),
    role: z.string(),
    created_at: z.string(),
    expires_at: z.string(),
  })
  .openapi("Invitation");

/** Authorization first (404 stranger, 403 without members:manage), then the feature switch (501). */
async function authorizeOrgInvites(c: AppContext, rawOrgId: string) {
  const orgId = parseOrgId(rawOrgId);
  await requireOrgMember(c.env.DB, orgId, c.get("auth").userId, {
    permission: "members:manage",
    notFoundDetail: "Not found.",
  });
  requireInvitesEnabled(c.env);
  return { orgId };
}

const listOrgInvitationsRoute = createRoute({
  method: "get",
  path: "/api/v1/auth/orgs/{org_id}/invitations",
  tags: ["Organization invitations"],
  summary: "Pending, unaccepted and unexpired invitations of both scopes",
  ...bearerAuth,
  request: { params: z.object({ org_id: z.string().max(64) }) },
  responses: {
    200: jsonResponse("Invitations", z.object({ items: z.array(Invitation) })),
    ...problemResponses({
      400: "BAD_ORG",
      401: "UNAUTHENTICATED, TOKEN_EXPIRED",
      403: "FORBIDDEN",
      404: "NOT_FOUND",
      501: "INVITES_DISABLED",
    }),
  },
});

const revokeOrgInvitationRoute = createRoute({
  method: "delete",
  path: "/api/v1/auth/orgs/{org_id}/invitations/{id}",
  tags: ["Organization invitations"],
  summary: "Revoke a pending invitation (org_id is part of the match)",
  ...bearerAuth,
  request: { params: z.object({ org_id: z.string().max(64), id: z.string().max(64) }) },
  responses: {
    204: { description: "Revoked" },
    ...problemResponses({
      400: "BAD_ORG",
      401: "UNAUTHENTICATED, TOKEN_EXPIRED",
      403: "FORBIDDEN",
      404: "NOT_FOUND",
      501: "INVITES_DISABLED",
    }),
  },
});

const resendOrgInvitationRoute = createRoute({
  method: "post",
  path: "/api/v1/auth/orgs/{org_id}/invitations/{id}/resend",
  tags: ["Organization invitations"],
  summary: "Rotate the token, restart the 7-day expiry and e-mail again (the token is never returned)",
  ...bearerAuth,
  request: { params: z.object({ org_id: z.string().max(64), id: z.string().max(64) }) },
  responses: {
    202: jsonResponse(
      "Sent (email_sent false: rotated, only sending failed)",
      z.object({ email_sent: z.boolean(), expires_at: z.string() }),
    ),
    ...problemResponses({
      400: "BAD_ORG",
      403: "FORBIDDEN",
      404: "NOT_FOUND",
      409: "INVITATION_ALREADY_ACCEPTED",
      429: "RATE_LIMITED",
      501: "INVITES_DISABLED",
    }),
  },
});

const acceptInvitationRoute = createRoute({
  method: "post",
  path: "/api/v1/auth/invitations/accept",
  tags: ["Organization invitations"],
  summary: "Accept an invitation with its token (a new account sets a password and gets a session)",
  request: jsonBody(
    z
      .strictObject({ token: z.string().min(10).max(128), password: z.string().max(1024).optional() })
      .openapi("AcceptInvitationRequest"),
  ),
  responses: {
    200: jsonResponse(
      "Accepted",
      z.object({
        org_id: z.string(),
        site_id: z.string().nullable(),
        role: z.string(),
        scope: z.enum(["org", "site"]),
      }),
    ),
    ...problemResponses({
      400: "BAD_REQUEST (password required for a new account), PASSWORD_TOO_WEAK, PASSWORD_BREACHED",
      404: "NOT_FOUND (unknown, used, revoked or expired token)",
      409: "LAST_SITE_OWNER, LAST_ORG_OWNER (the invited role would demote the last owner; still pending)",
      429: "RATE_LIMITED",
      501: "INVITES_DISABLED",
    }),
  },
});

export function registerInvitationRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(listOrgInvitationsRoute, async (c) => {
    const owner = await authorizeOrgInvites(c, c.req.valid("param").org_id);
    return c.json({ items: await pendingInvitationViews(c.env.DB, owner) }, 200);
  });

  app.openapi(revokeOrgInvitationRoute, async (c) => {
    const params = c.req.valid("param");
    const owner = await authorizeOrgInvites(c, params.org_id);
    await revokeInvitation(c.env, c.get("auth").userId, params.id, owner, owner.orgId);
    return c.body(null, 204);
  });

  app.openapi(resendOrgInvitationRoute, async (c) => {
    const params = c.req.valid("param");
    const owner = await authorizeOrgInvites(c, params.org_id);
    return c.json(await resendInvitation(c.env, c.get("services"), params.id, owner), 202);
  });

  app.openapi(acceptInvitationRoute, async (c) => {
    requireInvitesEnabled(c.env);
    const services = c.get("services");
    await enforceRateLimit(c.env, "invite_accept_ip", services.request.ip);
    const { membership, newUserId } = await redeemInvitation(c.env, services, c.req.valid("json"));
    if (!newUserId) return c.json(membership, 200);
    const session = await createSession(c.env, services, { userId: newUserId, method: "invitation" });
    return c.json({ ...membership, ...(await sessionResponse(c, session)) }, 200);
  });
}
