/** Organization invitations (list, revoke, resend) and invitation acceptance. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { problemResponses } from "../../lib/app";
import { newId, parseUlid } from "../../lib/ids";
import { ApiError } from "../../lib/problem";
import { requireBearer } from "../auth";
import type { AppContext, AppEnv } from "../context";
import { clientIp } from "../context";
import { nowIso, sha256Hex } from "../crypto";
import { enforceRateLimit } from "../guards";
import {
  INVITATION_COLUMNS,
  type InvitationRow,
  invitationView,
  mailInvitation,
  rotateInvitation,
} from "../invitations";
import { hashPassword } from "../password";
import { enforcePasswordPolicy } from "../password-policy";
import { orgMembership } from "../roles";
import { createSession, sessionResponse } from "../sessions";
import { findVerifiedOwner } from "../store";
import { bearerSecurity, jsonBody, jsonResponse } from "./schemas";

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

function parseOrg(raw: string) {
  const id = parseUlid(raw);
  if (!id) throw new ApiError(400, "BAD_ORG", { detail: "org_id must be a ULID." });
  return id;
}

/** Authorization first (404 stranger, 403 without members:manage), then the feature switch (501). */
async function authorizeOrgInvites(c: AppContext, orgId: string) {
  const me = await orgMembership(c.env.DB, orgId, c.get("auth").userId);
  if (!me) throw new ApiError(404, "NOT_FOUND", { detail: "Not found." });
  if (!me.permissions.includes("members:manage")) {
    throw new ApiError(403, "FORBIDDEN", { detail: "Requires members:manage." });
  }
  if (c.env.INVITES_ENABLED !== "true")
    throw new ApiError(501, "INVITES_DISABLED", { detail: "Invitations are disabled." });
}

export function registerInvitationRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/auth/orgs/{org_id}/invitations",
      tags: ["Organization invitations"],
      summary: "Pending, unaccepted and unexpired invitations of both scopes",
      security: bearerSecurity,
      middleware: [requireBearer] as const,
      request: { params: z.object({ org_id: z.string().max(64) }) },
      responses: {
        200: jsonResponse("Invitations", z.object({ items: z.array(Invitation) })),
        ...problemResponses({
          400: "BAD_ORG",
          401: "UNAUTHORIZED",
          403: "FORBIDDEN",
          404: "NOT_FOUND",
          501: "INVITES_DISABLED",
        }),
      },
    }),
    async (c) => {
      const orgId = parseOrg(c.req.valid("param").org_id);
      await authorizeOrgInvites(c, orgId);
      const { results } = await c.env.DB.prepare(
        `SELECT ${INVITATION_COLUMNS} FROM invitations
         WHERE org_id = ? AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > ?
         ORDER BY created_at DESC LIMIT 200`,
      )
        .bind(orgId, nowIso())
        .all<InvitationRow>();
      return c.json({ items: results.map(invitationView) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/api/v1/auth/orgs/{org_id}/invitations/{id}",
      tags: ["Organization invitations"],
      summary: "Revoke a pending invitation (org_id is part of the match)",
      security: bearerSecurity,
      middleware: [requireBearer] as const,
      request: { params: z.object({ org_id: z.string().max(64), id: z.string().max(64) }) },
      responses: {
        204: { description: "Revoked" },
        ...problemResponses({
          400: "BAD_ORG",
          401: "UNAUTHORIZED",
          403: "FORBIDDEN",
          404: "NOT_FOUND",
          501: "INVITES_DISABLED",
        }),
      },
    }),
    async (c) => {
      const params = c.req.valid("param");
      const orgId = parseOrg(params.org_id);
      await authorizeOrgInvites(c, orgId);
      const id = parseUlid(params.id);
      const res = id
        ? await c.env.DB.prepare(
            "UPDATE invitations SET revoked_at = ? WHERE id = ? AND org_id = ? AND accepted_at IS NULL AND revoked_at IS NULL",
          )
            .bind(nowIso(), id, orgId)
            .run()
        : null;
      if (res?.meta.changes !== 1) throw new ApiError(404, "NOT_FOUND", { detail: "No pending invitation." });
      return c.body(null, 204);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/auth/orgs/{org_id}/invitations/{id}/resend",
      tags: ["Organization invitations"],
      summary: "Rotate the token, restart the 7-day expiry and e-mail again (the token is never returned)",
      security: bearerSecurity,
      middleware: [requireBearer] as const,
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
    }),
    async (c) => {
      const params = c.req.valid("param");
      const orgId = parseOrg(params.org_id);
      await authorizeOrgInvites(c, orgId);
      const id = parseUlid(params.id);
      if (!id) throw new ApiError(404, "NOT_FOUND", { detail: "No such invitation." });
      const pending = await c.env.DB.prepare("SELECT email FROM invitations WHERE id = ? AND org_id = ?")
        .bind(id, orgId)
        .first<{ email: string }>();
      if (!pending) throw new ApiError(404, "NOT_FOUND", { detail: "No such invitation." });
      await enforceRateLimit(c.env, "invite_resend_ip", clientIp(c));
      await enforceRateLimit(c.env, "invite_resend_mailbox", pending.email);
      const rotated = await rotateInvitation(c, id, "AND org_id = ?", [orgId]);
      if (rotated === "accepted") {
        throw new ApiError(409, "INVITATION_ALREADY_ACCEPTED", {
          detail: "The invitation was already accepted.",
        });
      }
      if (!rotated) throw new ApiError(404, "NOT_FOUND", { detail: "No such invitation." });
      const emailSent = await mailInvitation(c, rotated.row.email, rotated.token);
      return c.json({ email_sent: emailSent, expires_at: rotated.row.expires_at }, 202);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/auth/invitations/accept",
      tags: ["Organization invitations"],
      summary: "Accept an invitation with its token (a new account sets a password and gets a session)",
      request: jsonBody(
        z
          .object({ token: z.string().min(10).max(128), password: z.string().max(1024).optional() })
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
          429: "RATE_LIMITED",
          501: "INVITES_DISABLED",
        }),
      },
    }),
    async (c) => {
      if (c.env.INVITES_ENABLED !== "true")
        throw new ApiError(501, "INVITES_DISABLED", { detail: "Invitations are disabled." });
      await enforceRateLimit(c.env, "invite_accept_ip", clientIp(c));
      const body = c.req.valid("json");
      const tokenHash = await sha256Hex(body.token);
      const peek = await c.env.DB.prepare(
        `SELECT ${INVITATION_COLUMNS} FROM invitations
         WHERE token_hash = ? AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > ?`,
      )
        .bind(tokenHash, nowIso())
        .first<InvitationRow>();
      const notFound = () =>
        new ApiError(404, "NOT_FOUND", { detail: "The invitation is unknown, used or expired." });
      if (!peek) throw notFound();
      const owner = await findVerifiedOwner(c.env.DB, peek.email);
      let userId = owner?.user_id ?? null;
      const now = nowIso();
      // Single use: the claim is a compare-and-set and every other write only happens if it won.
      const claim = c.env.DB.prepare(
        "UPDATE invitations SET accepted_at = ? WHERE id = ? AND token_hash = ? AND accepted_at IS NULL AND revoked_at IS NULL",
      ).bind(now, peek.id, tokenHash);
      const won = "EXISTS (SELECT 1 FROM invitations WHERE id = ? AND accepted_at = ?)";
      const statements: D1PreparedStatement[] = [claim];
      if (!userId) {
        // A new account: possession of the e-mailed token proves the address.
        if (!body.password)
          throw new ApiError(400, "BAD_REQUEST", { detail: "password is required for a new account." });
        await enforcePasswordPolicy(c, body.password);
        userId = newId();
        statements.push(
          c.env.DB.prepare(
            `INSERT INTO users (id, status, password_hash, created_at, updated_at) SELECT ?, 'active', ?, ?, ? WHERE ${won}`,
          ).bind(userId, await hashPassword(body.password), now, now, peek.id, now),
          c.env.DB.prepare(
            `INSERT INTO email_addresses (id, user_id, address, verified_at, is_primary, created_at)
             SELECT ?, ?, ?, ?, 1, ? WHERE ${won}`,
          ).bind(newId(), userId, peek.email, now, now, peek.id, now),
        );
      }
      statements.push(
        peek.scope === "site"
          ? c.env.DB.prepare(
              `INSERT INTO site_memberships (site_id, user_id, org_id, role, created_at) SELECT ?, ?, ?, ?, ? WHERE ${won}
               ON CONFLICT (site_id, user_id) DO UPDATE SET role = excluded.role`,
            ).bind(peek.site_id, userId, peek.org_id, peek.role, now, peek.id, now)
          : c.env.DB.prepare(
              `INSERT INTO org_memberships (org_id, user_id, role, created_at) SELECT ?, ?, ?, ? WHERE ${won}
               ON CONFLICT (org_id, user_id) DO NOTHING`,
            ).bind(peek.org_id, userId, peek.role, now, peek.id, now),
      );
      let results: D1Result[];
      try {
        results = await c.env.DB.batch(statements);
      } catch (err) {
        // Another acceptance proved the same address at the same moment: this one lost.
        if (String((err as Error).message).includes("UNIQUE")) throw notFound();
        throw err;
      }
      if ((results[0]?.meta.changes ?? 0) !== 1) throw notFound();
      const view = { org_id: peek.org_id, site_id: peek.site_id, role: peek.role, scope: peek.scope };
      if (!owner) {
        const session = await createSession(c, { userId, method: "invitation" });
        return c.json({ ...view, ...(await sessionResponse(c, session)) }, 200);
      }
      return c.json(view, 200);
    },
  );
}
