/** Issuing a session: its row (a new refresh family) and its events; the cookies are session-response.ts's. */

import { newId } from "../../lib/ids";
import type { ApiError } from "../../lib/problem";
import { batch } from "../../lib/sql";
import { SESSION_TTL_S, TRUSTED_SESSION_TTL_S } from "../core/config";
import type { Services } from "../core/context";
import { isoIn } from "../core/crypto";
import type { Env } from "../core/worker-env";
import { eventOrigin, signInEvents } from "../events/events";
import { newRefreshToken, refreshTokenHash } from "./refresh-tokens";
import { insertSessionStatement } from "./sessions-store";

export interface IssuedSession {
  userId: string;
  sessionId: string;
  refreshToken: string;
  expiresAt: string;
  trusted: boolean;
}

export interface SessionRequest {
  userId: string;
  method: string;
  trusted?: boolean;
  /**
   * The account's credential epoch when the sign-in's proof was read or consumed: the session is
   * written only while it is unchanged (login/sessions-store.ts), else `stale` is thrown.
   */
  epoch?: number;
  stale?: () => ApiError;
}

/**
 * Statement and tokens of a new session (a new refresh family), to run alone or inside a batch, and the
 * security events (`events`) that belong in that batch right after the statement (conditioned on it
 * when the insert is conditioned on the credential epoch).
 */
export async function prepareSession(
  env: Pick<Env, "DB">,
  services: Pick<Services, "request">,
  input: SessionRequest,
): Promise<{ statement: D1PreparedStatement; session: IssuedSession; events: D1PreparedStatement[] }> {
  const trusted = input.trusted ?? false;
  const sessionId = newId();
  const familyId = newId();
  const refreshToken = newRefreshToken(familyId);
  const expiresAt = isoIn(trusted ? TRUSTED_SESSION_TTL_S : SESSION_TTL_S);
  const statement = insertSessionStatement(
    env.DB,
    {
      id: sessionId,
      userId: input.userId,
      familyId,
      refreshHash: await refreshTokenHash(refreshToken),
      trusted,
      method: input.method,
      ip: services.request.ip,
      userAgent: services.request.userAgent,
      expiresAt,
    },
    input.epoch,
  );
  const events = signInEvents(env.DB, eventOrigin(services.request), input.userId, input.method, {
    ifChanged: input.epoch !== undefined,
  });
  return {
    statement,
    session: { userId: input.userId, sessionId, refreshToken, expiresAt, trusted },
    events,
  };
}

export async function createSession(
  env: Pick<Env, "DB">,
  services: Pick<Services, "request">,
  input: SessionRequest,
) {
  const { statement, session, events } = await prepareSession(env, services, input);
  const [written] = await batch(env.DB, [statement, ...events]);
  if (written?.changes !== 1) {
    throw input.stale?.() ?? new Error("session not written: the credential epoch changed");
  }
  return session;
}
