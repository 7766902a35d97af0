/**
 * The rotation of an MCP agent's refresh token (issue 37, docs/decisions/oauth-agents.md "Tokens"), run by
 * the grant's RefreshFamily Durable Object (`grant:<grant id>`) under its lock, so rotations of one grant
 * run one at a time; the D1 write is itself a compare-and-set with the successor's insert conditioned on
 * it, so one token yields at most one successor even across Durable Object restarts. A rotated token
 * presented again is reuse (RFC 9700 §4.14.2): the grant ends (`refresh_reuse`), and with it the successor
 * that either the client or the thief holds.
 */

import { batch } from "../../lib/sql";
import { isoIn, nowIso } from "../core/crypto";
import type { EventOrigin } from "../events/events";
import { endGrants } from "./grants";
import { newGrantRefreshToken, oauthHash, REFRESH_TOKEN_TTL_S } from "./refresh-tokens";
import { insertRefreshTokenStatement, refreshTokenByHash, rotateRefreshTokenStatement } from "./tokens-store";

export type GrantRotateOutcome =
  | { kind: "ok"; refreshToken: string }
  | { kind: "failed"; reason: "unknown" | "expired" | "revoked" | "reuse" };

export interface GrantRotateInput {
  token: string;
  grantId: string;
  /** The refreshing request's origin, for the person's `oauth_grant.revoked` event on reuse. */
  origin: EventOrigin;
}

/** One rotation; the caller holds the grant's lock (RefreshFamily.rotateGrant). */
export async function rotateGrantToken(db: D1Database, input: GrantRotateInput): Promise<GrantRotateOutcome> {
  const hash = await oauthHash(input.token);
  const row = await refreshTokenByHash(db, hash);
  if (!row || row.grant_id !== input.grantId) return { kind: "failed", reason: "unknown" };
  if (row.rotated_at !== null) {
    await endGrants(db, { id: row.grant_id }, { reason: "refresh_reuse", origin: input.origin });
    return { kind: "failed", reason: "reuse" };
  }
  const now = nowIso();
  if (row.expires_at <= now) return { kind: "failed", reason: "expired" };
  const refreshToken = newGrantRefreshToken(row.grant_id);
  const [rotated] = await batch(db, [
    rotateRefreshTokenStatement(db, hash, now),
    insertRefreshTokenStatement(db, {
      hash: await oauthHash(refreshToken),
      grantId: row.grant_id,
      now,
      expiresAt: isoIn(REFRESH_TOKEN_TTL_S, Date.parse(now)),
    }),
  ]);
  // The compare-and-set lost: the grant was revoked meanwhile (the lock rules out a concurrent rotation).
  if (rotated.changes === 0) return { kind: "failed", reason: "revoked" };
  return { kind: "ok", refreshToken };
}
