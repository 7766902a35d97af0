/**
 * Device cookies (OWASP "device cookie" against lockout abuse): a browser that completed a sign-in for an
 * account carries `svc_device`, an HMAC-signed pair of account and device id. It is not a credential (it
 * signs nobody in); it only tells the guards that this client signed in as that account before, so a
 * stranger's failures, which count against the account, never lock the owner's own devices out: their
 * password attempts count on a per-device guard, and their magic-link/reset requests pass the
 * address-wide mail cap. HttpOnly, SameSite=Lax, on the auth path only, one year.
 */
import { hmacHex, randomToken, timingSafeEqual } from "../core/crypto";

/** Where the device cookie (`DEVICE_COOKIE` in core/context.ts) is sent back, and for how long. */
export const DEVICE_COOKIE_PATH = "/api/v1/auth";
export const DEVICE_TTL_S = 365 * 24 * 3600;
const FORMAT = /^dv1\.([0-9A-Za-z]{10,40})\.([A-Za-z0-9_-]{16,64})\.([0-9a-f]{64})$/;

function mac(pepper: string, userId: string, deviceId: string) {
  return hmacHex(pepper, `device|${userId}|${deviceId}`);
}

/** The device id of the request's device cookie when it is genuine and was issued to `userId`. */
export async function knownDevice(
  pepper: string,
  cookie: string | undefined,
  userId: string,
): Promise<string | null> {
  const m = cookie ? FORMAT.exec(cookie) : null;
  if (!m || m[1] !== userId) return null;
  return timingSafeEqual(await mac(pepper, userId, m[2]!), m[3]!) ? m[2]! : null;
}

/**
 * The device cookie's value after a sign-in of `userId`: it keeps the device id the request's cookie
 * already had for that account, else names a new device (the response layer sets it).
 */
export async function deviceCookieValue(
  pepper: string,
  current: string | undefined,
  userId: string,
): Promise<string> {
  const deviceId = (await knownDevice(pepper, current, userId)) ?? randomToken(16);
  return `dv1.${userId}.${deviceId}.${await mac(pepper, userId, deviceId)}`;
}
