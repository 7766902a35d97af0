/**
 * TOTP (RFC 6238) over HOTP (RFC 4226) with WebCrypto HMAC. RFC 6238 §5.2: the verifier "MUST NOT accept
 * the second attempt of the same OTP after the successful validation has been issued for the first OTP",
 * so a code accepted once is refused for the rest of its window (the last used step is stored and compared
 * in the same statement that accepts, so two parallel uses of one code cannot both win). The window of
 * one step either side is RFC 6238 §5.2's recommended "at most one time step" of network delay.
 */
const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

export const TOTP_PERIOD_S = 30;
export const TOTP_DIGITS = 6;
/** Accepted clock drift: one step before and after the current one. */
export const TOTP_WINDOW = 1;

export function base32Encode(bytes: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = "";
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

export function base32Decode(text: string): Uint8Array {
  const clean = text.replace(/=+$/, "").replace(/\s+/g, "").toUpperCase();
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const ch of clean) {
    const idx = BASE32.indexOf(ch);
    if (idx < 0) throw new Error("invalid base32");
    value = (value << 5) | idx;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return new Uint8Array(out);
}

export type TotpHash = "SHA-1" | "SHA-256" | "SHA-512";

export async function hotp(key: Uint8Array, counter: number, digits = TOTP_DIGITS, hash: TotpHash = "SHA-1") {
  const msg = new Uint8Array(8);
  let c = counter;
  for (let i = 7; i >= 0; i--) {
    msg[i] = c & 0xff;
    c = Math.floor(c / 256);
  }
  const k = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash }, false, ["sign"]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", k, msg));
  const offset = mac[mac.length - 1]! & 0x0f;
  const bin =
    ((mac[offset]! & 0x7f) << 24) | (mac[offset + 1]! << 16) | (mac[offset + 2]! << 8) | mac[offset + 3]!;
  return String(bin % 10 ** digits).padStart(digits, "0");
}

export function totpStep(unixSeconds: number): number {
  return Math.floor(unixSeconds / TOTP_PERIOD_S);
}

export function totpAt(key: Uint8Array, unixSeconds: number, digits = TOTP_DIGITS, hash: TotpHash = "SHA-1") {
  return hotp(key, totpStep(unixSeconds), digits, hash);
}

/** The step a code matches within the drift window (newest first), or null. */
export async function matchTotp(key: Uint8Array, code: string, unixSeconds = Date.now() / 1000) {
  if (!/^\d{6}$/.test(code)) return null;
  const now = totpStep(unixSeconds);
  let matched: number | null = null;
  // Every candidate is computed so the time does not depend on which step matched.
  for (let d = TOTP_WINDOW; d >= -TOTP_WINDOW; d--) {
    const candidate = await hotp(key, now + d);
    if (candidate === code && matched === null) matched = now + d;
  }
  return matched;
}

export function otpauthUri(secretBase32: string, account: string, issuer: string): string {
  const label = encodeURIComponent(`${issuer}:${account}`);
  const params = new URLSearchParams({
    secret: secretBase32,
    issuer,
    algorithm: "SHA1",
    digits: String(TOTP_DIGITS),
    period: String(TOTP_PERIOD_S),
  });
  return `otpauth://totp/${label}?${params.toString()}`;
}
