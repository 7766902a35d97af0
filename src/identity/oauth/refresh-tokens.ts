/**
 * The form of an MCP agent's refresh token and how every OAuth secret is stored (issue 37,
 * docs/decisions/oauth-agents.md "Names"): `mcr_<grant id>.<256 random bits>`, kept as base64url(SHA-256).
 * 256 random bits make guessing infeasible (RFC 6749 §10.10); storing only a hash means a database leak
 * yields no usable token (RFC 9700 §4.14).
 */
import { base64url } from "../../lib/base64url";
import { randomToken } from "../core/crypto";

/** Refresh tokens live 30 days from their issue (each rotation issues a new one). */
export const REFRESH_TOKEN_TTL_S = 30 * 24 * 3600;
/** base64url(SHA-256(value)): how codes, refresh tokens and client secrets are stored. */
export async function oauthHash(value: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(value))));
}

/** `mcr_<grant id>.<256 random bits>`: the grant id picks the refresh family's Durable Object. */
export function newGrantRefreshToken(grantId: string): string {
  return `mcr_${grantId}.${randomToken(32)}`;
}

/** The grant id of a well-formed refresh token, else null. */
export function refreshTokenGrant(token: string): string | null {
  const m = /^mcr_([0-9A-HJKMNP-TV-Z]{26})\.[A-Za-z0-9_-]{43}$/.exec(token);
  return m ? m[1]! : null;
}
