/** Registering a passkey on the caller's account: one open ceremony at a time, at most a fixed number. */
import { newId } from "../lib/ids";
import { MAX_PASSKEYS_PER_ACCOUNT } from "./config";
import { base64url, isoIn, nowIso } from "./crypto";
import { fail, problem } from "./errors";
import {
  passkeyRegistrationOptions,
  REGISTRATION_CEREMONY_TTL_S,
  reportedDiscoverable,
  verifyPasskeyRegistration,
} from "./passkeys";
import { primaryEmail } from "./store/accounts";
import {
  discoverableFlag,
  insertPasskey,
  openRegistrationCeremony,
  passkeyCredentials,
  takeRegistrationChallenge,
} from "./store/passkeys";
import type { Env } from "./worker-env";

const LIMIT_REACHED = () => problem("PASSKEY_LIMIT_REACHED", `At most ${MAX_PASSKEYS_PER_ACCOUNT} passkeys.`);

/** Opens a registration ceremony (an earlier open one dies): options for navigator.credentials.create. */
export async function beginPasskeyRegistration(env: Env, userId: string) {
  const existing = await passkeyCredentials(env.DB, userId);
  if (existing.length >= MAX_PASSKEYS_PER_ACCOUNT) throw LIMIT_REACHED();
  const options = await passkeyRegistrationOptions(
    env,
    { id: userId, name: (await primaryEmail(env.DB, userId)) ?? userId },
    existing,
  );
  await openRegistrationCeremony(env.DB, userId, options.challenge, isoIn(REGISTRATION_CEREMONY_TTL_S));
  return { publicKey: options as unknown as Record<string, unknown> };
}

/**
 * Finishes the open ceremony (taken once, whatever the outcome) with the attestation and stores the
 * passkey. A credential already registered, or one over the limit, is refused by the insert itself.
 */
export async function finishPasskeyRegistration(
  env: Env,
  userId: string,
  input: { credential: unknown; name?: string },
) {
  const challenge = await takeRegistrationChallenge(env.DB, userId);
  if (!challenge) {
    fail("PASSKEY_CEREMONY_INVALID", "Begin a registration first.");
  }
  const info = await verifyPasskeyRegistration(env, challenge, input.credential);
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
