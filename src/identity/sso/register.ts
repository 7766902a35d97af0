/**
 * Finishing a verified SSO sign-in that found no linked account (issue 24 §1):
 * - `register` (`POST /v1/auth/sso/register` of the spec): an unknown person from a vouched domain
 *   creates the account (active, its provider-verified address primary), with a password under the
 *   password policy only when the organization allows passwords, and joins with the default role;
 * - `link`: an existing account holding the address proves it with the e-mailed code first.
 * Both consume their single-use token (compare-and-set) and write everything in one batch.
 */
import { newId } from "../../lib/ids";
import type { Services } from "../core/context";
import { nowIso, sha256Hex } from "../core/crypto";
import { isUniqueViolation } from "../core/d1-errors";
import type { Env } from "../core/worker-env";
import { fail } from "../errors";
import type { IssuedSession } from "../login/sessions";
import { consumeOtp } from "../messaging/otp";
import { findVerifiedOwner } from "../signup/accounts-store";
import { hashPassword } from "../signup/password";
import { enforcePasswordPolicy } from "../signup/password-policy";
import { SSO_DEFAULT_ROLE } from "./settings";
import { ssoSession } from "./sign-in";
import {
  consumePending,
  findConfig,
  findPending,
  joinStatement,
  linkStatement,
  newAccountStatements,
  type SsoPendingRow,
} from "./store";

const invalid = () =>
  fail(
    "SSO_TOKEN_INVALID",
    "This sign-in can no longer be completed; sign in through your organization again.",
  );

async function pendingWithConfig(env: Env, token: string, kind: SsoPendingRow["kind"]) {
  const tokenHash = await sha256Hex(token);
  const pending = await findPending(env.DB, tokenHash, kind);
  const config = pending ? await findConfig(env.DB, pending.org_id) : null;
  if (!pending || !config || config.config_id !== pending.config_id) invalid();
  return { tokenHash, pending: pending!, config: config! };
}

export async function registerThroughSso(
  env: Env,
  services: Services,
  body: { registration_token: string; display_name?: string | undefined; password?: string | undefined },
): Promise<IssuedSession> {
  const { tokenHash, pending, config } = await pendingWithConfig(env, body.registration_token, "register");
  let passwordHash: string | null = null;
  if (body.password !== undefined) {
    if (config.allow_passwords !== 1)
      fail("BAD_REQUEST", "This organization signs its members in only through its provider.");
    await enforcePasswordPolicy(env, services, body.password);
    passwordHash = await hashPassword(body.password);
  }
  if (!(await consumePending(env.DB, tokenHash, "register"))) invalid();
  const userId = newId();
  const now = nowIso();
  const db = env.DB;
  const account = [
    ...newAccountStatements(db, {
      userId,
      passwordHash,
      displayName: body.display_name ?? pending.name,
      address: pending.email,
      now,
    }),
    joinStatement(db, pending.org_id, userId, SSO_DEFAULT_ROLE),
    linkStatement(db, pending.org_id, pending.subject, userId),
  ];
  try {
    return await ssoSession(env, services, config, userId, pending.amr, account);
  } catch (err) {
    if (isUniqueViolation(err))
      fail("EMAIL_TAKEN", "Another account proved this address first; sign in to it and link it instead.");
    throw err;
  }
}

export async function linkThroughSso(
  env: Env,
  services: Services,
  body: { link_token: string; code: string },
): Promise<IssuedSession> {
  const { tokenHash, pending, config } = await pendingWithConfig(env, body.link_token, "link");
  const proved = await consumeOtp(env, {
    purpose: "sso_link",
    target: pending.email,
    userId: pending.user_id ?? undefined,
    context: tokenHash,
    code: body.code.trim(),
  });
  if (!proved) fail("CODE_INVALID", "The code is wrong, used or expired.");
  if (!(await consumePending(env.DB, tokenHash, "link"))) invalid();
  const owner = await findVerifiedOwner(env.DB, pending.email);
  if (!owner || owner.user_id !== pending.user_id || owner.status !== "active") invalid();
  const db = env.DB;
  return ssoSession(env, services, config, owner!.user_id, pending.amr, [
    joinStatement(db, pending.org_id, owner!.user_id, SSO_DEFAULT_ROLE),
    linkStatement(db, pending.org_id, pending.subject, owner!.user_id),
  ]);
}
