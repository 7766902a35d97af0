/**
 * The person's notice of an agent's new grant (issue 37, the credential rule) and its one-click undo.
 *
 * The notice goes to the primary address at once (identity's owner-notice rule: the address a stolen
 * access token cannot change without a code sent there), in the account's language, naming the agent (its
 * own, unverified name and its client_id), the site and the scopes, with a link that revokes the grant
 * without signing in. The link carries a stateless token, as a factor's undo does
 * (`emails/address-disown.ts`): the grant, the account and an expiry (7 days), signed with HMAC keyed by
 * OTP_PEPPER under its own label, so only identity mints one and only for that grant of that account.
 *
 * Using it, in ONE batch: the grant's compare-and-set (reason `not_me`), its `oauth_grant.revoked` and a
 * `not_me_used` event, every session of the account ended (`sessions_revoked`) and its credential epoch
 * moved on: the person says someone else approved it, so the session that did is presumed stolen. Single
 * use in effect: only a live grant is revoked, so a second click changes nothing, records nothing and
 * signs nobody out again; it answers `already_ended`.
 */
import { parseUlid } from "../../lib/ids";
import { DISOWN_TOKEN_TTL_S } from "../core/config";
import type { Services } from "../core/context";
import { hmacHex, nowIso, timingSafeEqual } from "../core/crypto";
import type { Env } from "../core/worker-env";
import { fail } from "../errors";
import { eventOrigin, recordEvent } from "../events/events";
import { enforceRateLimit } from "../login/guards";
import type { NoticeSender } from "../messaging/owner-notices";
import { primaryEmail } from "../signup/accounts-store";
import { clientName, grantSummary, revokeGrantByUndo } from "./consent-store";

export const UNDO_PATH = "/auth/authorize/undo";

interface UndoClaim {
  grantId: string;
  userId: string;
}

function mac(pepper: string, claim: UndoClaim, expires: number): Promise<string> {
  return hmacHex(pepper, `oauth-grant-undo|${claim.grantId}|${claim.userId}|${expires}`);
}

/** `<grant id>.<user id>.<expiry, unix seconds>.<HMAC>`, valid DISOWN_TOKEN_TTL_S (7 days) from `from`. */
export async function signUndoToken(pepper: string, claim: UndoClaim, from = Date.now()): Promise<string> {
  const expires = Math.floor(from / 1000) + DISOWN_TOKEN_TTL_S;
  return `${claim.grantId}.${claim.userId}.${expires}.${await mac(pepper, claim, expires)}`;
}

/** The claim of an undo token identity signed that has not expired; null for anything else. */
export async function readUndoToken(
  pepper: string,
  token: string,
  now = Date.now(),
): Promise<UndoClaim | null> {
  if (typeof token !== "string" || token.length > 200) return null;
  const [rawGrant, rawUser, rawExpires, signature, ...rest] = token.split(".");
  const grantId = parseUlid(rawGrant ?? "");
  const userId = parseUlid(rawUser ?? "");
  if (rest.length > 0 || !grantId || !userId || !signature || !/^\d{1,12}$/.test(rawExpires ?? ""))
    return null;
  const expires = Number(rawExpires);
  const claim = { grantId, userId };
  if (!timingSafeEqual(signature, await mac(pepper, claim, expires))) return null;
  return expires * 1000 > now ? claim : null;
}

/** Tells the person's primary address of the new grant, with the undo link; a failure is logged, never thrown. */
export async function noticeGrantCreated(
  sender: NoticeSender,
  input: { userId: string; grantId: string; clientId: string; siteName: string; scopes: string[] },
): Promise<void> {
  const { env, log } = sender;
  try {
    const [primary, client] = await Promise.all([
      primaryEmail(env.DB, input.userId),
      clientName(env.DB, input.clientId),
    ]);
    if (!primary) return;
    const token = await signUndoToken(env.OTP_PEPPER, { grantId: input.grantId, userId: input.userId });
    await sender.mailer.send({
      to: primary,
      purpose: "oauth_grant_notice",
      vars: {
        client: client ?? input.clientId,
        clientId: input.clientId,
        site: input.siteName,
        scopes: input.scopes,
        undoDays: DISOWN_TOKEN_TTL_S / (24 * 3600),
      },
      link: `${env.ISSUER}${UNDO_PATH}?token=${encodeURIComponent(token)}`,
    });
  } catch (err) {
    log.error("owner_notice_failed", { purpose: "oauth_grant_notice", error: (err as Error).message });
  }
}

/**
 * The undo link's work: revokes the grant the token names and ends every session of its account (one
 * batch). 401 CODE_INVALID for a token identity did not sign, another kind's, or an expired one.
 */
export async function undoGrant(
  env: Env,
  services: Pick<Services, "request" | "log">,
  token: string,
): Promise<{ grant_id: string; outcome: "revoked" | "already_ended" }> {
  await enforceRateLimit(env, "verify_ip", services.request.ip);
  const claim = await readUndoToken(env.OTP_PEPPER, token);
  if (!claim) fail("CODE_INVALID", "The link is invalid or has expired.");
  const { grantId, userId } = claim;
  const grant = await grantSummary(env.DB, grantId, userId);
  if (!grant) fail("CODE_INVALID", "The link is invalid or has expired.");
  const origin = eventOrigin(services.request);
  const after = { ifChanged: true };
  const revoked = await revokeGrantByUndo(
    env.DB,
    { grantId, userId, now: nowIso() },
    [
      recordEvent(
        env.DB,
        origin,
        {
          userId,
          type: "oauth_grant.revoked",
          method: "not_me",
          actorUserId: userId,
          target: grantId,
          detail: `client ${grant.client_id}`,
        },
        after,
      ),
      recordEvent(
        env.DB,
        origin,
        { userId, type: "not_me_used", target: grantId, detail: "oauth_grant" },
        after,
      ),
    ],
    recordEvent(env.DB, origin, { userId, type: "sessions_revoked", detail: "all" }, after),
  );
  services.log.info("oauth_grant_disowned", {
    user_id: userId,
    grant_id: grantId,
    outcome: revoked ? "revoked" : "already_ended",
  });
  return { grant_id: grantId, outcome: revoked ? "revoked" : "already_ended" };
}
