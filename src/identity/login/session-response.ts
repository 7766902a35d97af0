/**
 * The response layer of a sign-in: the session's answer body and its cookies (`svc_session`,
 * `svc_refresh`, and the device cookie of devices.ts). Business code issues the session
 * (sessions.ts); routes hand it here to shape the answer.
 */
import { deleteCookie, setCookie } from "hono/cookie";
import { type AppContext, DEVICE_COOKIE } from "../core/context";
import type { Env } from "../core/worker-env";
import { primaryEmail } from "../signup/accounts-store";
import { DEVICE_COOKIE_PATH, DEVICE_TTL_S, deviceCookieValue } from "./devices";
import type { IssuedSession } from "./sessions";
import { accessTokenTtl, signAccessToken } from "./tokens";

export const SESSION_COOKIE = "svc_session";
export const REFRESH_COOKIE = "svc_refresh";
const REFRESH_COOKIE_PATH = "/api/v1/auth";

/** Sets (or renews) the device cookie after a sign-in of `userId`; keeps the device id it already had. */
async function rememberDevice(c: AppContext, userId: string, secure: boolean): Promise<void> {
  const current = c.get("services").request.deviceCookie;
  setCookie(c, DEVICE_COOKIE, await deviceCookieValue(c.env.OTP_PEPPER, current, userId), {
    httpOnly: true,
    secure,
    sameSite: "Lax",
    path: DEVICE_COOKIE_PATH,
    maxAge: DEVICE_TTL_S,
  });
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
  const secure = c.get("services").request.https;
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
  const secure = c.get("services").request.https;
  deleteCookie(c, SESSION_COOKIE, { path: "/", secure, httpOnly: true, sameSite: "Lax" });
  deleteCookie(c, REFRESH_COOKIE, { path: REFRESH_COOKIE_PATH, secure, httpOnly: true, sameSite: "Lax" });
}
