import { randomToken, sha256Hex } from "../core/crypto";

/**
 * Refresh tokens are opaque: `rt1.<family id>.<256 random bits>`. The family id routes the token to
 * its RefreshFamily Durable Object; only the SHA-256 of the whole token is stored.
 * 256 random bits make guessing infeasible (RFC 6749 §10.10: the probability of guessing "MUST be less
 * than or equal to 2^(-128)"); storing only a hash means a database leak yields no usable token (RFC 9700
 * §4.14 and OWASP Session Management Cheat Sheet).
 */
export function newRefreshToken(familyId: string): string {
  return `rt1.${familyId}.${randomToken(32)}`;
}

export function refreshTokenHash(token: string): Promise<string> {
  return sha256Hex(token);
}

export function refreshTokenFamily(token: string): string | null {
  const m = /^rt1\.([0-9A-HJKMNP-TV-Z]{26})\.[A-Za-z0-9_-]{43}$/.exec(token);
  return m ? m[1]! : null;
}
