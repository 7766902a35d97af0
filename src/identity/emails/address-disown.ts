/**
 * The owner's one-click "this was not me", from the link in a notice to the primary address: for an
 * added address, a sign-in factor (TOTP, phone, passkey) or a recovery-code pool. The link carries a
 * stateless token: what it names (kind and id), the account and an expiry, signed with HMAC keyed by
 * OTP_PEPPER, so only this service can mint one and only for that thing of that account. Using it
 * removes the thing and ends every session of the account in one batch.
 */
import { parseUlid } from "../../lib/ids";
import { DISOWN_TOKEN_TTL_S } from "../core/config";
import type { Services } from "../core/context";
import { hmacHex, timingSafeEqual } from "../core/crypto";
import type { Env } from "../core/worker-env";
import { fail } from "../errors";
import { type EventOrigin, eventOrigin, recordEvent } from "../events/events";
import { disownFactor, type FactorKind } from "../factors/store";
import { enforceRateLimit } from "../login/guards";
import { disownEmail } from "./store";

export type DisownKind = "email" | FactorKind;
const KINDS: readonly DisownKind[] = ["email", "totp", "phone", "passkey", "recovery"];

export interface DisownClaim {
  kind: DisownKind;
  /** The address, factor or pool (the id of its first code). */
  subjectId: string;
  userId: string;
}

function mac(pepper: string, claim: DisownClaim, expires: number): Promise<string> {
  return hmacHex(pepper, `${claim.kind}-disown|${claim.subjectId}|${claim.userId}|${expires}`);
}

/**
 * `[<kind>.]<subject id>.<user id>.<expiry, unix seconds>.<HMAC>`, valid DISOWN_TOKEN_TTL_S from
 * `from`. An address's token has no kind part (the form of the links mailed before factors had one).
 */
export async function signDisownToken(
  pepper: string,
  claim: DisownClaim,
  from = Date.now(),
): Promise<string> {
  const expires = Math.floor(from / 1000) + DISOWN_TOKEN_TTL_S;
  const kind = claim.kind === "email" ? "" : `${claim.kind}.`;
  return `${kind}${claim.subjectId}.${claim.userId}.${expires}.${await mac(pepper, claim, expires)}`;
}

/** The claim of a token this service signed and that has not expired; null for anything else. */
export async function readDisownToken(
  pepper: string,
  token: string,
  now = Date.now(),
): Promise<DisownClaim | null> {
  const parts = token.split(".");
  const kind = (parts.length === 5 ? parts.shift() : "email") as DisownKind;
  const [rawSubject, rawUser, rawExpires, signature, ...rest] = parts;
  const subjectId = parseUlid(rawSubject ?? "");
  const userId = parseUlid(rawUser ?? "");
  if (
    !KINDS.includes(kind) ||
    rest.length > 0 ||
    !subjectId ||
    !userId ||
    !signature ||
    !/^\d{1,12}$/.test(rawExpires ?? "")
  ) {
    return null;
  }
  const expires = Number(rawExpires);
  const claim = { kind, subjectId, userId };
  if (!timingSafeEqual(signature, await mac(pepper, claim, expires))) return null;
  return expires * 1000 > now ? claim : null;
}

const FACTOR_METHOD: Record<FactorKind, string | null> = {
  totp: "totp",
  phone: "sms",
  passkey: "passkey",
  recovery: null,
};

/**
 * The events of a factor's or pool's undo, for the end of its batch: "not me", the factor removed (a
 * pool is no factor) and every session revoked. The first is conditioned on the removal (the batch's
 * last statement), each next one on the one before, so a second click records nothing.
 */
function disownEvents(
  db: D1Database,
  origin: EventOrigin,
  claim: { kind: FactorKind; userId: string; subjectId: string },
) {
  const { userId, subjectId, kind } = claim;
  const after = { ifChanged: true };
  const method = FACTOR_METHOD[kind];
  return [
    recordEvent(db, origin, { userId, type: "not_me_used", target: subjectId, detail: kind }, after),
    ...(method
      ? [recordEvent(db, origin, { userId, type: "factor_removed", method, target: subjectId }, after)]
      : []),
    recordEvent(db, origin, { userId, type: "sessions_revoked", detail: "all" }, after),
  ];
}

/**
 * Removes what the token names and ends every session of its account (and its open login challenges),
 * in one batch: the owner says someone else added it, so the access token that did is presumed stolen.
 * Something already gone is the same success (the link may be clicked twice); an address the owner has
 * since made primary is kept (409). `kinds` limits which notices' links an endpoint takes.
 */
export async function disownByToken(
  env: Env,
  services: Pick<Services, "request" | "log">,
  token: string,
  kinds: readonly DisownKind[],
) {
  const { request, log } = services;
  await enforceRateLimit(env, "verify_ip", request.ip);
  const claim = await readDisownToken(env.OTP_PEPPER, token);
  if (!claim || !kinds.includes(claim.kind)) {
    fail("CODE_INVALID", "The link is invalid or has expired.");
  }
  const { kind, userId, subjectId } = claim;
  if (kind === "email") {
    const event = recordEvent(
      env.DB,
      eventOrigin(request),
      { userId, type: "not_me_used", target: subjectId, detail: "address" },
      { ifChanged: true },
    );
    const outcome = await disownEmail(env.DB, userId, subjectId, event);
    if (outcome === "primary") {
      fail("EMAIL_IS_PRIMARY", "This address has since become the primary address; it was not removed.");
    }
    log.info("email_disowned", { user_id: userId, address_id: subjectId, outcome });
    return;
  }
  const events = disownEvents(env.DB, eventOrigin(request), { kind, userId, subjectId });
  const removed = await disownFactor(env.DB, kind, userId, subjectId, events);
  log.info("factor_disowned", {
    user_id: userId,
    kind,
    id: subjectId,
    outcome: removed ? "removed" : "gone",
  });
}
