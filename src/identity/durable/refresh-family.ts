import { DurableObject } from "cloudflare:workers";
import { newId } from "../../lib/ids";
import { nowIso } from "../crypto";
import { newRefreshToken, refreshTokenHash } from "../refresh-tokens";
import { revokeAllSessionsStatement, type SessionRow, type UserStatus } from "../store";
import type { Env } from "../worker-env";
import { Mutex } from "./mutex";

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
 */
export class RefreshFamily extends DurableObject<Env> {
  private readonly lock = new Mutex();

  async rotate(input: { token: string; familyId: string; ip: string | null; userAgent: string | null }) {
    return this.lock.run(() => this.rotateLocked(input));
  }

  private async rotateLocked(input: {
    token: string;
    familyId: string;
    ip: string | null;
    userAgent: string | null;
  }): Promise<RotateOutcome> {
    const db = this.env.DB;
    const row = await db
      .prepare(
        `SELECT s.id, s.user_id, s.family_id, s.refresh_hash, s.trusted_device, s.auth_method, s.ip, s.user_agent,
                s.created_at, s.expires_at, s.revoked_at, s.revoked_reason, u.status AS user_status
         FROM sessions s LEFT JOIN users u ON u.id = s.user_id WHERE s.refresh_hash = ?`,
      )
      .bind(await refreshTokenHash(input.token))
      .first<SessionRow & { user_status: UserStatus | null }>();
    if (!row || row.family_id !== input.familyId) return { kind: "failed", reason: "unknown" };
    if (row.revoked_at) {
      if (row.revoked_reason === "rotated") {
        await revokeAllSessionsStatement(db, row.user_id, "refresh_reuse").run();
        console.warn(
          JSON.stringify({
            level: "warn",
            event: "refresh_reuse",
            user_id: row.user_id,
            family: row.family_id,
          }),
        );
        return { kind: "failed", reason: "reuse" };
      }
      return { kind: "failed", reason: "revoked" };
    }
    if (row.expires_at <= nowIso()) return { kind: "failed", reason: "expired" };
    if (!row.user_status) return { kind: "failed", reason: "user_missing" };
    if (row.user_status === "locked") return { kind: "locked" };
    if (row.user_status !== "active") return { kind: "forbidden" };

    const sessionId = newId();
    const refreshToken = newRefreshToken(row.family_id);
    const [cas] = await db.batch([
      db
        .prepare(
          "UPDATE sessions SET revoked_at = ?, revoked_reason = 'rotated', rotated_to = ? WHERE id = ? AND revoked_at IS NULL",
        )
        .bind(nowIso(), sessionId, row.id),
      db
        .prepare(
          `INSERT INTO sessions (id, user_id, family_id, kind, refresh_hash, trusted_device, auth_method, ip, user_agent, created_at, expires_at)
           SELECT ?, ?, ?, 'staff', ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM sessions WHERE id = ? AND rotated_to = ?)`,
        )
        .bind(
          sessionId,
          row.user_id,
          row.family_id,
          await refreshTokenHash(refreshToken),
          row.trusted_device,
          row.auth_method,
          input.ip,
          input.userAgent?.slice(0, 256) ?? null,
          nowIso(),
          row.expires_at,
          row.id,
          sessionId,
        ),
    ]);
    if (cas?.meta.changes !== 1) return { kind: "failed", reason: "revoked" };
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
