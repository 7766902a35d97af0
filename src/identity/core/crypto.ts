/** Small primitives shared by the identity modules (WebCrypto only). */
const encoder = new TextEncoder();

export function nowIso(date = new Date()): string {
  return date.toISOString();
}

export function isoIn(seconds: number, from = Date.now()): string {
  return new Date(from + seconds * 1000).toISOString();
}

import { base64url } from "../../lib/base64url";

export { base64url };

export function fromBase64url(text: string): Uint8Array {
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/");
  const bin = atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

export function hex(bytes: ArrayBuffer | Uint8Array): string {
  return [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export function randomBytes(n: number): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(n));
}

export function randomToken(bytes = 32): string {
  return base64url(randomBytes(bytes));
}

/** Uniform decimal code of `digits` digits (rejection sampling, no modulo bias). */
export function randomDigits(digits: number): string {
  const max = 10 ** digits;
  const limit = Math.floor(0x1_0000_0000 / max) * max;
  const buf = new Uint32Array(1);
  for (;;) {
    crypto.getRandomValues(buf);
    const v = buf[0]!;
    if (v < limit) return String(v % max).padStart(digits, "0");
  }
}

export async function sha256Hex(text: string): Promise<string> {
  return hex(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
}

const hmacKeys = new Map<string, Promise<CryptoKey>>();

function hmacKey(secret: string): Promise<CryptoKey> {
  let key = hmacKeys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
      "sign",
    ]);
    hmacKeys.set(secret, key);
  }
  return key;
}

/** HMAC-SHA-256 keyed by a server secret: stored codes are useless without the pepper. */
export async function hmacHex(secret: string, message: string): Promise<string> {
  return hex(await crypto.subtle.sign("HMAC", await hmacKey(secret), encoder.encode(message)));
}

/** Constant-time comparison of two strings of equal expected length. */
export function timingSafeEqual(a: string, b: string): boolean {
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}

async function aesKey(secret: string): Promise<CryptoKey> {
  const raw = await crypto.subtle.digest("SHA-256", encoder.encode(`totp-secret-key|${secret}`));
  return crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt", "decrypt"]);
}

/** Encrypts a small secret at rest (AES-GCM, key derived from the pepper). */
export async function sealSecret(pepper: string, plaintext: string): Promise<string> {
  const iv = randomBytes(12);
  const sealed = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv },
    await aesKey(pepper),
    encoder.encode(plaintext),
  );
  return `${base64url(iv)}.${base64url(new Uint8Array(sealed))}`;
}

export async function openSecret(pepper: string, sealed: string): Promise<string> {
  const [iv, data] = sealed.split(".");
  const plain = await crypto.subtle.decrypt(
    { name: "AES-GCM", iv: fromBase64url(iv ?? "") },
    await aesKey(pepper),
    fromBase64url(data ?? ""),
  );
  return new TextDecoder().decode(plain);
}

/** `j***@example.com`, `+*******4567`: enough for the owner to recognize, little for anyone else. */
export function maskEmail(address: string): string {
  const at = address.lastIndexOf("@");
  if (at < 1) return "***";
  return `${address[0]}***${address.slice(at)}`;
}

export function maskPhone(e164: string): string {
  return `${e164.slice(0, 2)}${"*".repeat(Math.max(0, e164.length - 6))}${e164.slice(-4)}`;
}
