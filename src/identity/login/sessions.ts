import { deleteCookie, setCookie } from "hono/cookie";
import { newId } from "../../lib/ids";
import type { ApiError } from "../../lib/problem";
import { SESSION_TTL_S, TRUSTED_SESSION_TTL_S } from "../core/config";
import { type AppContext, clientIp } from "../core/context";
import { isoIn } from "../core/crypto";
import type { Env } from "../core/worker-env";
import { eventOrigin, signInEvents } from "../events/events";
import { primaryEmail } from "../signup/accounts-store";
import { rememberDevice } from "./devices";
import { newRefreshToken, refreshTokenHash } from "./refresh-tokens";
import { insertSessionStatement } from "./sessions-store";
import { accessTokenTtl, signAccessToken } from "./tokens";

export const SESSION_COOKIE = "svc_session";
export const REFRESH_COOKIE = "svc_refresh";
const REFRESH_COOKIE_PATH = "/api/v1/auth";

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
   * written only while it is unchanged (store/sessions.ts), else `stale` is thrown.
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
  c: AppContext,
  input: SessionRequest,
): Promise<{ statement: D1PreparedStatement; session: IssuedSession; events: D1PreparedStatement[] }> {
  const trusted = input.trusted ?? false;
  const sessionId = newId();
  const familyId = newId();
  const refreshToken = newRefreshToken(familyId);
  const expiresAt = isoIn(trusted ? TRUSTED_SESSION_TTL_S : SESSION_TTL_S);
  const statement = insertSessionStatement(
    c.env.DB,
    {
      id: sessionId,
      userId: input.userId,
      familyId,
      refreshHash: await refreshTokenHash(refreshToken),
      trusted,
      method: input.method,
      ip: clientIp(c),
      userAgent: c.req.header("user-agent") ?? null,
      expiresAt,
    },
    input.epoch,
  );
  const events = signInEvents(c.env.DB, eventOrigin(c), input.userId, input.method, {
    ifChanged: input.epoch !== undefined,
  });
  return {
    statement,
    session: { userId: input.userId, sessionId, refreshToken, expiresAt, trusted },
    events,
  };
}

export async function createSession(c: AppContext, input: SessionRequest) {
  const { statement, session, events } = await prepareSession(c, input);
  const [written] = await c.env.DB.batch([statement, ...events]);
  if (written?.meta.changes !== 1) {
    throw input.stale?.() ?? new Error("session not written: the credential epoch changed");
  }
  return session;
}

function isHttps(c: AppContext): boolean {
  return new URL(c.req.url).protocol === "https:" || c.req.header("x-forwarded-proto") === "https";
}

/** The session response body plus the `svc_session` and `svc_refresh` cookies. */
export async function sessionResponse<X extends Record<string, unknown> = Record<never, never>>(
  c: AppContext,
  s: IssuedSession,
  extra?: X,
) {
  const env: Env = c.env;
  const accessToken = await signAccessToken(env, s.userId, s.sessionId);
  const ttl = accessTokenTtl(env);
  const secure = isHttps(c);
  setCookie(c, SESSION_COOKIE, accessToken, {
    httpOnly: true,
    secure,
    sameSite: "Lax",
    path: "/",
    maxAge: ttl,
  });
  setCookie(c, REFRESH_COOKIE, s.refreshToken, {
    httpOnly: true,
    secure,
    sameSite: "Lax",
    path: REFRESH_COOKIE_PATH,
    maxAge: Math.max(0, Math.floor((Date.parse(s.expiresAt) - Date.now()) / 1000)),
  });
  await rememberDevice(c, s.userId, secure);
  c.header("Cache-Control", "no-store");
  return {
    access_token: accessToken,
    refresh_token: s.refreshToken,
    token_type: "Bearer" as const,
    expires_in: ttl,
    session_id: s.sessionId,
    user: { id: s.userId, email: (await primaryEmail(env.DB, s.userId)) ?? "" },
    ...(extra as X),
  };
}

export function clearSessionCookies(c: AppContext) {
  const secure = isHttps(c);
  deleteCookie(c, SESSION_COOKIE, { path: "/", secure, httpOnly: true, sameSite: "Lax" });
  deleteCookie(c, REFRESH_COOKIE, { path: REFRESH_COOKIE_PATH, secure, httpOnly: true, sameSite: "Lax" });
}
