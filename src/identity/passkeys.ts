/** Passkey (WebAuthn) assertions for the phased login. */
import {
  type AuthenticationResponseJSON,
  type AuthenticatorTransport,
  generateAuthenticationOptions,
  verifyAuthenticationResponse,
} from "@simplewebauthn/server";
import { fromBase64url, nowIso } from "./crypto";
import type { Env } from "./worker-env";

export type PasskeyAssertionResult = "ok" | "invalid" | "clone_suspected";

interface PasskeyRow {
  id: string;
  credential_id: string;
  public_key: string;
  counter: number;
  transports: string | null;
}

export function passkeysEnabled(env: Env): boolean {
  return env.PASSKEYS_ENABLED === "true";
}

export async function hasPasskeys(db: D1Database, userId: string): Promise<boolean> {
  const row = await db.prepare("SELECT 1 AS ok FROM passkeys WHERE user_id = ? LIMIT 1").bind(userId).first();
  return row !== null;
}

/** Options for `navigator.credentials.get`: challenge and credential ids are base64url without padding. */
export async function passkeyLoginOptions(env: Env, userId: string) {
  const { results } = await env.DB.prepare("SELECT credential_id, transports FROM passkeys WHERE user_id = ?")
    .bind(userId)
    .all<{ credential_id: string; transports: string | null }>();
  return generateAuthenticationOptions({
    rpID: env.WEBAUTHN_RP_ID,
    userVerification: "preferred",
    timeout: 120_000,
    allowCredentials: results.map((r) => ({
      id: r.credential_id,
      transports: r.transports ? (JSON.parse(r.transports) as AuthenticatorTransport[]) : undefined,
    })),
  });
}

function isAssertion(value: unknown): value is AuthenticationResponseJSON {
  const v = value as Partial<AuthenticationResponseJSON> | null;
  return (
    !!v &&
    typeof v === "object" &&
    typeof v.id === "string" &&
    typeof v.rawId === "string" &&
    v.type === "public-key" &&
    !!v.response &&
    typeof v.response.clientDataJSON === "string" &&
    typeof v.response.authenticatorData === "string" &&
    typeof v.response.signature === "string"
  );
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
  const row = await env.DB.prepare(
    "SELECT id, credential_id, public_key, counter, transports FROM passkeys WHERE user_id = ? AND credential_id = ?",
  )
    .bind(userId, credential.id)
    .first<PasskeyRow>();
  if (!row) return "invalid";
  let newCounter: number;
  try {
    const result = await verifyAuthenticationResponse({
      response: credential,
      expectedChallenge,
      expectedOrigin: env.WEBAUTHN_ORIGIN,
      expectedRPID: env.WEBAUTHN_RP_ID,
      requireUserVerification: false,
      credential: {
        id: row.credential_id,
        publicKey: fromBase64url(row.public_key) as Uint8Array<ArrayBuffer>,
        counter: row.counter,
        transports: row.transports ? (JSON.parse(row.transports) as AuthenticatorTransport[]) : undefined,
      },
    });
    if (!result.verified) return "invalid";
    newCounter = result.authenticationInfo.newCounter;
  } catch (err) {
    return /counter/i.test((err as Error).message) ? "clone_suspected" : "invalid";
  }
  const res = await env.DB.prepare(
    "UPDATE passkeys SET counter = ?, last_used_at = ? WHERE id = ? AND (counter < ? OR (counter = 0 AND ? = 0))",
  )
    .bind(newCounter, nowIso(), row.id, newCounter, newCounter)
    .run();
  return res.meta.changes === 1 ? "ok" : "clone_suspected";
}
