/** API key material: generation (ck_/pk_ + 32 random bytes, base64url) and the peppered hash stored in D1. */
const encoder = new TextEncoder();
const hmacKeys = new Map<string, Promise<CryptoKey>>();

export type KeyKind = "secret" | "public";

import { base64url } from "../../lib/base64url";

export { base64url, base64urlDecode } from "../../lib/base64url";

export function generateApiKey(kind: KeyKind): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return `${kind === "secret" ? "ck_" : "pk_"}${base64url(bytes)}`;
}

function hmacKey(secret: string): Promise<CryptoKey> {
  let key = hmacKeys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
      "sign",
      "verify",
    ]);
    hmacKeys.set(secret, key);
  }
  return key;
}

export async function hmacSha256(secret: string, message: string): Promise<Uint8Array> {
  const sig = await crypto.subtle.sign("HMAC", await hmacKey(secret), encoder.encode(message));
  return new Uint8Array(sig);
}

/** Keyed hash of an API key: a leaked table without the pepper cannot be brute-forced offline. */
export async function hashApiKey(pepper: string, key: string): Promise<string> {
  const sig = await hmacSha256(pepper, key);
  return [...sig].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export async function sha256Base64url(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", encoder.encode(text));
  return base64url(new Uint8Array(digest));
}

/** Constant-time comparison of two equal-length byte arrays. */
export function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}
