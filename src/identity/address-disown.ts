/**
 * The one-click removal of an added address, from the link in the notice to the primary address. The
 * link carries a stateless token: the address id, the account and an expiry, signed with HMAC keyed by
 * OTP_PEPPER, so only this service can mint one and only for that address of that account.
 */
import { parseUlid } from "../lib/ids";
import type { Logger } from "../lib/log";
import { DISOWN_TOKEN_TTL_S } from "./config";
import { hmacHex, timingSafeEqual } from "./crypto";
import { fail } from "./errors";
import { type EventOrigin, recordEvent } from "./events";
import { enforceRateLimit } from "./guards";
import { disownEmail } from "./store/emails";
import type { Env } from "./worker-env";

export interface DisownClaim {
  addressId: string;
  userId: string;
}

function mac(pepper: string, claim: DisownClaim, expires: number): Promise<string> {
  return hmacHex(pepper, `email-disown|${claim.addressId}|${claim.userId}|${expires}`);
}

/** `<address id>.<user id>.<expiry, unix seconds>.<HMAC>`; valid DISOWN_TOKEN_TTL_S from `from`. */
export async function signDisownToken(
  pepper: string,
  claim: DisownClaim,
  from = Date.now(),
): Promise<string> {
  const expires = Math.floor(from / 1000) + DISOWN_TOKEN_TTL_S;
  return `${claim.addressId}.${claim.userId}.${expires}.${await mac(pepper, claim, expires)}`;
}

/** The claim of a token this service signed and that has not expired; null for anything else. */
export async function readDisownToken(
  pepper: string,
  token: string,
  now = Date.now(),
): Promise<DisownClaim | null> {
  const [rawAddress, rawUser, rawExpires, signature, ...rest] = token.split(".");
  const addressId = parseUlid(rawAddress ?? "");
  const userId = parseUlid(rawUser ?? "");
  if (rest.length > 0 || !addressId || !userId || !signature || !/^\d{1,12}$/.test(rawExpires ?? "")) {
    return null;
  }
  const expires = Number(rawExpires);
  const claim = { addressId, userId };
  if (!timingSafeEqual(signature, await mac(pepper, claim, expires))) return null;
  return expires * 1000 > now ? claim : null;
}

/**
 * Removes the address the token names and ends every session of its account, in one batch: the owner
 * says someone else added it, so the access token that did is presumed stolen. An address already gone
 * is the same success (the link may be clicked twice); one the owner has since made primary is kept.
 */
export async function disownAddress(
  env: Env,
  input: { token: string; ip: string; origin: EventOrigin },
  log: Logger,
) {
  await enforceRateLimit(env, "verify_ip", input.ip);
  const claim = await readDisownToken(env.OTP_PEPPER, input.token);
  if (!claim) fail("CODE_INVALID", "The removal link is invalid or has expired.");
  const event = recordEvent(
    env.DB,
    input.origin,
    { userId: claim.userId, type: "not_me_used", target: claim.addressId, detail: "address" },
    { ifChanged: true },
  );
  const outcome = await disownEmail(env.DB, claim.userId, claim.addressId, event);
  if (outcome === "primary") {
    fail("EMAIL_IS_PRIMARY", "This address has since become the primary address; it was not removed.");
  }
  log.info("email_disowned", { user_id: claim.userId, address_id: claim.addressId, outcome });
}
