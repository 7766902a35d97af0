/** Registering a passkey on the caller's account: one open ceremony at a time, at most a fixed number. */
import { newId } from "../../lib/ids";
import { MAX_PASSKEYS_PER_ACCOUNT } from "../core/config";
import { base64url, isoIn, nowIso } from "../core/crypto";
import type { Env } from "../core/worker-env";
import { fail, problem } from "../errors";
import { primaryEmail } from "../signup/accounts-store";
import {
  passkeyRegistrationOptions,
  REGISTRATION_CEREMONY_TTL_S,
  reportedDiscoverable,
  verifyPasskeyRegistration,
} from "./passkeys";
import {
  discoverableFlag,
  insertPasskey,
  openRegistrationCeremony,
  passkeyCredentials,
  takeRegistrationChallenge,
} from "./passkeys-store";

const LIMIT_REACHED = () => problem("PASSKEY_LIMIT_REACHED", `At most ${MAX_PASSKEYS_PER_ACCOUNT} passkeys.`);

/**
 * Opens a registration ceremony (an earlier open one dies): options for navigator.credentials.create.
 * `prove` (factor-enrollment.ts: the step-up, for every passkey) runs after the limit check and before
 * anything is stored; the ceremony records that it was opened with the code.
 */
export async function beginPasskeyRegistration(env: Env, userId: string, prove: () => Promise<boolean>) {
  const existing = await passkeyCredentials(env.DB, userId);
  if (existing.length >= MAX_PASSKEYS_PER_ACCOUNT) throw LIMIT_REACHED();
  const steppedUp = await prove();
  const options = await passkeyRegistrationOptions(
    env,
    { id: userId, name: (await primaryEmail(env.DB, userId)) ?? userId },
    existing,
  );
  await openRegistrationCeremony(env.DB, userId, {
    challenge: options.challenge,
    expiresAt: isoIn(REGISTRATION_CEREMONY_TTL_S),
    steppedUp,
  });
  return { publicKey: options as unknown as Record<string, unknown> };
}

const CEREMONY_INVALID = () => problem("PASSKEY_CEREMONY_INVALID", "Begin a registration first.");

/**
 * Finishes the open ceremony (taken once, whatever the outcome) with the attestation and stores the
 * passkey, marked as registered with the step-up. Only a ceremony opened with the step-up completes: one
 * opened without it (before issue 31, when an account without a factor needed none) is refused with 401
 * PASSKEY_CEREMONY_INVALID (begin again, which asks for the code), so no passkey a stolen access token
 * could add is ever stored. A credential already registered, or one over the limit, is refused by the
 * insert itself.
 */
export async function finishPasskeyRegistration(
  env: Env,
  userId: string,
  input: { credential: unknown; name?: string },
  event?: D1PreparedStatement,
) {
  const ceremony = await takeRegistrationChallenge(env.DB, userId);
  if (!ceremony?.steppedUp) throw CEREMONY_INVALID();
  const info = await verifyPasskeyRegistration(env, ceremony.challenge, input.credential);
  if (!info) fail("PASSKEY_INVALID", "The passkey attestation was refused.");
  const id = newId();
  const now = nowIso();
  const name = input.name ?? null;
  const stored = await insertPasskey(
    env.DB,
    {
      id,
      userId,
      credentialId: info.id,
      publicKey: base64url(info.publicKey),
      counter: info.counter,
      transports: info.transports ? JSON.stringify(info.transports) : null,
      discoverable: reportedDiscoverable(input.credential),
      name,
      createdAt: now,
    },
    MAX_PASSKEYS_PER_ACCOUNT,
    event,
  );
  if (stored === "duplicate") {
    fail("PASSKEY_ALREADY_REGISTERED", "This passkey is already registered.");
  }
  if (stored === "limit") throw LIMIT_REACHED();
  return {
    id,
    name,
    created_at: now,
    last_used_at: null,
    discoverable: discoverableFlag(reportedDiscoverable(input.credential)),
  };
}
