/**
 * Verifying a JWT identity signed (the gateway's staff access tokens, content's MCP agent tokens): EdDSA with a
 * `kid` only (RFC 8725 §3.1: "none", HS256 with the public key... stop before any key is read), against
 * identity's JWKS as the caller keeps it. An unknown `kid` refetches the key set once, at most every 30 s, so a
 * rotated key works at once without letting a flood of forged kids hammer identity. "expired" is said only of
 * a token whose signature verified.
 */
import {
  createLocalJWKSet,
  decodeProtectedHeader,
  type JSONWebKeySet,
  type JWTPayload,
  type JWTVerifyOptions,
  jwtVerify,
  type ProtectedHeaderParameters,
} from "jose";
import { expiredJwt } from "./bearer";

const REFRESH_FLOOR_MS = 30_000;

/** The caller's key set: its cached copy, or (`force`) a fresh one from identity. */
export type LoadKeys = (force: boolean) => Promise<JSONWebKeySet>;

export interface IdentityJwtVerifier {
  /**
   * The verified payload, "expired", or null for anything else. `header` may refuse a token by its protected
   * header before any key is read (a token type this caller never accepts).
   */
  verify(
    token: string,
    loadKeys: LoadKeys,
    options: JWTVerifyOptions,
    header?: (header: ProtectedHeaderParameters) => boolean,
  ): Promise<JWTPayload | "expired" | null>;
  /** Tests only: forgets the refresh floor. */
  resetForTests(): void;
}

/** A verifier with its own refresh floor (one per isolate and caller: keep it in module scope). */
export function identityJwtVerifier(): IdentityJwtVerifier {
  let lastForcedRefresh = Number.NEGATIVE_INFINITY;
  const options = (given: JWTVerifyOptions): JWTVerifyOptions => ({ ...given, algorithms: ["EdDSA"] });
  return {
    async verify(token, loadKeys, given, header) {
      try {
        const protectedHeader = decodeProtectedHeader(token);
        if (protectedHeader.alg !== "EdDSA" || typeof protectedHeader.kid !== "string") return null;
        if (header && !header(protectedHeader)) return null;
      } catch {
        return null;
      }
      try {
        return (await jwtVerify(token, createLocalJWKSet(await loadKeys(false)), options(given))).payload;
      } catch (err) {
        if (expiredJwt(err)) return "expired";
        const code = (err as { code?: string }).code;
        if (code !== "ERR_JWKS_NO_MATCHING_KEY" || Date.now() - lastForcedRefresh < REFRESH_FLOOR_MS)
          return null;
        lastForcedRefresh = Date.now();
        try {
          return (await jwtVerify(token, createLocalJWKSet(await loadKeys(true)), options(given))).payload;
        } catch (retryErr) {
          return expiredJwt(retryErr) ? "expired" : null;
        }
      }
    },
    resetForTests() {
      lastForcedRefresh = Number.NEGATIVE_INFINITY;
    },
  };
}
