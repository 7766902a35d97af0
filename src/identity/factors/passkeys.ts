/** Passkey (WebAuthn) ceremonies: registration for the account, assertions for the phased login. */
import {
  type AuthenticationResponseJSON,
  type AuthenticatorTransport,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from "@simplewebauthn/server";
import { base64url, fromBase64url } from "../core/crypto";
import type { Env } from "../core/worker-env";
import {
  advancePasskeyCounter,
  findPasskey,
  findPasskeyByCredentialId,
  type PasskeyRow,
  passkeyCredentials,
} from "./passkeys-store";

export type PasskeyAssertionResult = "ok" | "invalid" | "clone_suspected";

export const REGISTRATION_CEREMONY_TTL_S = 5 * 60;

export function passkeysEnabled(env: Env): boolean {
  return env.PASSKEYS_ENABLED === "true";
}

function parseTransports(raw: string | null): AuthenticatorTransport[] | undefined {
  return raw ? (JSON.parse(raw) as AuthenticatorTransport[]) : undefined;
}

/** Options for `navigator.credentials.get`: challenge and credential ids are base64url without padding. */
export async function passkeyLoginOptions(env: Env, userId: string) {
  const credentials = await passkeyCredentials(env.DB, userId);
  return generateAuthenticationOptions({
    rpID: env.WEBAUTHN_RP_ID,
    userVerification: "preferred",
    timeout: 120_000,
    allowCredentials: credentials.map((r) => ({
      id: r.credential_id,
      transports: parseTransports(r.transports),
    })),
  });
}

/** Options for `navigator.credentials.create`; the account's existing credentials are excluded. */
export function passkeyRegistrationOptions(
  env: Env,
  user: { id: string; name: string },
  existing: { credential_id: string }[],
) {
  return generateRegistrationOptions({
    rpName: env.WEBAUTHN_RP_NAME,
    rpID: env.WEBAUTHN_RP_ID,
    userName: user.name,
    userID: new TextEncoder().encode(user.id) as Uint8Array<ArrayBuffer>,
    attestationType: "none",
    excludeCredentials: existing.map((r) => ({ id: r.credential_id })),
    authenticatorSelection: { residentKey: "preferred", userVerification: "preferred" },
    timeout: REGISTRATION_CEREMONY_TTL_S * 1000,
  });
}

/** The fields every credential JSON carries, checked before the library sees untrusted input. */
function hasCredentialEnvelope(
  value: unknown,
): value is { id: string; rawId: string; type: "public-key"; response: Record<string, unknown> } {
  const v = value as {
    id?: unknown;
    rawId?: unknown;
    type?: unknown;
    response?: { clientDataJSON?: unknown };
  } | null;
  return (
    !!v &&
    typeof v === "object" &&
    typeof v.id === "string" &&
    typeof v.rawId === "string" &&
    v.type === "public-key" &&
    !!v.response &&
    typeof v.response.clientDataJSON === "string"
  );
}

function isAssertion(value: unknown): value is AuthenticationResponseJSON {
  return (
    hasCredentialEnvelope(value) &&
    typeof value.response.authenticatorData === "string" &&
    typeof value.response.signature === "string"
  );
}

function isRegistration(value: unknown): value is RegistrationResponseJSON {
  return hasCredentialEnvelope(value) && typeof value.response.attestationObject === "string";
}

/** Every origin a ceremony may come from (`WEBAUTHN_ORIGIN` is comma-separated). */
export function passkeyOrigins(env: Pick<Env, "WEBAUTHN_ORIGIN">): string[] {
  return env.WEBAUTHN_ORIGIN.split(",")
    .map((o) => o.trim())
    .filter(Boolean);
}

/** One definition of the relying party, so registration and login cannot drift apart. */
function relyingParty(env: Env) {
  return {
    expectedOrigin: passkeyOrigins(env),
    expectedRPID: env.WEBAUTHN_RP_ID,
    requireUserVerification: false,
  };
}

export interface RegisteredCredential {
  id: string;
  publicKey: Uint8Array;
  counter: number;
  transports?: string[];
}

/** The verified credential of an attestation, or null for anything the ceremony refuses. */
export async function verifyPasskeyRegistration(
  env: Env,
  expectedChallenge: string,
  credential: unknown,
): Promise<RegisteredCredential | null> {
  if (!isRegistration(credential)) return null;
  try {
    const result = await verifyRegistrationResponse({
      response: credential,
      expectedChallenge,
      ...relyingParty(env),
    });
    if (!result.verified || !result.registrationInfo) return null;
    return result.registrationInfo.credential;
  } catch {
    return null;
  }
}

/**
 * Whether the browser reported the new credential as discoverable (`credProps.rk`): 1, 0, or null when
 * not reported. Unsigned client data, so it is shown to the owner but never relied on for sign-in.
 */
export function reportedDiscoverable(credential: unknown): 0 | 1 | null {
  const rk = (credential as { clientExtensionResults?: { credProps?: { rk?: unknown } } } | null)
    ?.clientExtensionResults?.credProps?.rk;
  return typeof rk === "boolean" ? (rk ? 1 : 0) : null;
}

/**
 * Verifies an assertion against the stored challenge and the account's own credential (a credential
 * of another account is simply not found). A signature counter that did not advance means a cloned
 * authenticator: refused as `clone_suspected`.
 */
export async function verifyPasskeyAssertion(
  env: Env,
  userId: string,
  expectedChallenge: string,
  credential: unknown,
): Promise<PasskeyAssertionResult> {
  if (!isAssertion(credential)) return "invalid";
  const row = await findPasskey(env.DB, userId, credential.id);
  if (!row) return "invalid";
  return checkAssertion(env, row, expectedChallenge, credential, false);
}

/** Verifies an assertion against one stored credential and advances its counter atomically. */
async function checkAssertion(
  env: Env,
  row: PasskeyRow,
  expectedChallenge: string,
  credential: AuthenticationResponseJSON,
  requireUserVerification: boolean,
): Promise<PasskeyAssertionResult> {
  let newCounter: number;
  try {
    const result = await verifyAuthenticationResponse({
      response: credential,
      expectedChallenge,
      ...relyingParty(env),
      requireUserVerification,
      credential: {
        id: row.credential_id,
        publicKey: fromBase64url(row.public_key) as Uint8Array<ArrayBuffer>,
        counter: row.counter,
        transports: parseTransports(row.transports),
      },
    });
    if (!result.verified) return "invalid";
    if (requireUserVerification && !result.authenticationInfo.userVerified) return "invalid";
    newCounter = result.authenticationInfo.newCounter;
  } catch (err) {
    return /counter/i.test((err as Error).message) ? "clone_suspected" : "invalid";
  }
  return (await advancePasskeyCounter(env.DB, row.id, newCounter)) ? "ok" : "clone_suspected";
}

/**
 * Options for passkey-first sign-in: no account is known, so allowCredentials stays empty (the
 * authenticator offers its discoverable credentials) and user verification is required.
 */
export function passkeyFirstOptions(env: Env) {
  return generateAuthenticationOptions({
    rpID: env.WEBAUTHN_RP_ID,
    userVerification: "required",
    timeout: PASSKEY_FIRST_TTL_S * 1000,
    allowCredentials: [],
  });
}

export const PASSKEY_FIRST_TTL_S = 5 * 60;

/** The challenge a client echoed in its assertion (to find the server's copy), or null. */
export function assertionChallenge(credential: unknown): string | null {
  if (!isAssertion(credential) || credential.response.clientDataJSON.length > 4096) return null;
  try {
    const data = JSON.parse(new TextDecoder().decode(fromBase64url(credential.response.clientDataJSON)));
    const challenge = (data as { challenge?: unknown }).challenge;
    return typeof challenge === "string" && /^[A-Za-z0-9_-]{16,128}$/.test(challenge) ? challenge : null;
  } catch {
    return null;
  }
}

/**
 * A passkey-first assertion: the credential is found by its id alone (whoever holds it), its user
 * handle when sent must name that credential's account, and user verification is required. Returns the
 * account on success.
 */
export async function verifyPasskeyFirst(
  env: Env,
  expectedChallenge: string,
  credential: unknown,
): Promise<{ userId: string } | PasskeyAssertionResult> {
  if (!isAssertion(credential)) return "invalid";
  const row = await findPasskeyByCredentialId(env.DB, credential.id);
  if (!row) return "invalid";
  const handle = credential.response.userHandle;
  if (handle && handle !== base64url(new TextEncoder().encode(row.user_id))) return "invalid";
  const result = await checkAssertion(env, row, expectedChallenge, credential, true);
  return result === "ok" ? { userId: row.user_id } : result;
}
