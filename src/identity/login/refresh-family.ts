import { DurableObject } from "cloudflare:workers";
import { newId } from "../../lib/ids";
import { callLogger } from "../../lib/log";
import { nowIso } from "../core/crypto";
import { Mutex } from "../core/mutex";
import type { Env } from "../core/worker-env";
import { type GrantRotateInput, type GrantRotateOutcome, rotateGrantToken } from "../oauth/refresh";
import { newRefreshToken, refreshTokenHash } from "./refresh-tokens";
import { findSessionByRefreshHash, revokeAllSessionsStatement, rotateSession } from "./sessions-store";

export type RotateOutcome =
  | {
      kind: "ok";
      userId: string;
      sessionId: string;
      refreshToken: string;
      expiresAt: string;
      trusted: boolean;
    }
  | { kind: "failed"; reason: "unknown" | "revoked" | "reuse" | "expired" | "user_missing" }
  | { kind: "locked" }
  | { kind: "forbidden" };

/**
 * One instance per refresh-token family (the chain of sessions rotated from one login). Rotations of a
 * family run one at a time under a lock, and the D1 write is itself a compare-and-set, so one refresh
 * token yields at most one successor. Presenting a token that was already rotated is reuse: the token
 * is treated as stolen and every session of the account is revoked.
 *
 * Threat and sources: a refresh token leaked from a client (storage, logs, a proxy) lets an attacker mint
 * sessions for as long as it lives. Rotation with reuse detection is the answer of RFC 9700 (OAuth 2.0
 * Security Best Current Practice) §4.14.2 ("refresh token rotation": the server invalidates the token on
 * use and, when an invalidated one comes back, revokes the active one too, not knowing which party is
 * legitimate) and RFC 6749 §10.4. We revoke more than the family (every session of the account), because
 * reuse proves a token left the owner's control. Serializing rotations per family (one Durable Object) is
 * what makes "one successor per token" hold under concurrent refreshes (two tabs), which RFC 9700 leaves
 * to the implementation.
 */
export class RefreshFamily extends DurableObject<Env> {
  private readonly lock = new Mutex();

  async rotate(input: {
    token: string;
    familyId: string;
    ip: string | null;
    userAgent: string | null;
    /** The caller's request id, for the log. */
    requestId?: string;
  }) {
    return this.lock.run(() => this.rotateLocked(input));
  }

  /**
   * An MCP agent's grant (family name `grant:<grant id>`, issue 37): its refresh tokens rotate here under
   * the same lock, one successor per token; a rotated one presented again ends the grant
   * (src/identity/oauth/refresh.ts). The session path above is untouched.
   */
  async rotateGrant(input: GrantRotateInput): Promise<GrantRotateOutcome> {
    return this.lock.run(() => rotateGrantToken(this.env.DB, input));
  }

  private async rotateLocked(input: {
    token: string;
    familyId: string;
    ip: string | null;
    userAgent: string | null;
    requestId?: string;
  }): Promise<RotateOutcome> {
    const db = this.env.DB;
    const row = await findSessionByRefreshHash(db, await refreshTokenHash(input.token));
    if (!row || row.family_id !== input.familyId) return { kind: "failed", reason: "unknown" };
    if (row.revoked_at) {
      if (row.revoked_reason === "rotated") {
        await revokeAllSessionsStatement(db, row.user_id, "refresh_reuse").run();
        callLogger("identity", input.requestId).warn("refresh_reuse", {
          durable_object: "RefreshFamily",
          user_id: row.user_id,
          family: row.family_id,
        });
        return { kind: "failed", reason: "reuse" };
      }
      return { kind: "failed", reason: "revoked" };
    }
    if (row.expires_at <= nowIso()) return { kind: "failed", reason: "expired" };
    // Signed in through an organization's provider that was removed or replaced, or by a removed member.
    if (row.sso_ended === 1) return { kind: "failed", reason: "revoked" };
    if (!row.user_status) return { kind: "failed", reason: "user_missing" };
    if (row.user_status === "locked") return { kind: "locked" };
    if (row.user_status !== "active") return { kind: "forbidden" };

    const sessionId = newId();
    const refreshToken = newRefreshToken(row.family_id);
    const rotated = await rotateSession(db, row, {
      sessionId,
      refreshHash: await refreshTokenHash(refreshToken),
      ip: input.ip,
      userAgent: input.userAgent,
    });
    if (!rotated) return { kind: "failed", reason: "revoked" };
    return {
      kind: "ok",
      userId: row.user_id,
      sessionId,
      refreshToken,
      expiresAt: row.expires_at,
      trusted: row.trusted_device === 1,
    };
  }
}
