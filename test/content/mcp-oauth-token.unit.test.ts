/**
 * The agent token's verification against identity's JWKS (src/content/keys/agent-token.ts), with a fake
 * identity that counts its JWKS fetches: the gateway's cache rules (5 minutes; an unknown `kid` refetches at
 * once, at most every 30 s), a rotated key accepted at once, "expired" said only of a token whose signature
 * verified.
 */
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { forgetJwksForTests, MAX_TOKEN_LENGTH, verifyAgentToken } from "../../src/content/keys/agent-token";

const ISSUER = "https://api.platform.test";
const SITE = "01JAAAAAAAAAAAAAAAAAAAAAAA";
const GRANT = "01JBBBBBBBBBBBBBBBBBBBBBBB";

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

async function signingKey(kid: string): Promise<SigningKey> {
  const { publicKey, privateKey } = await generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true });
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: "EdDSA", use: "sig" } };
}

/** Identity's JWKS endpoint, serving `keys` (changeable), counting fetches. */
function fakeIdentity(keys: SigningKey[]) {
  const state = { keys, fetches: 0 };
  const identity = {
    fetch: async () => {
      state.fetches += 1;
      return Response.json({ keys: state.keys.map((k) => k.jwk) });
    },
  } as unknown as Fetcher;
  return { identity, state };
}

function token(key: SigningKey, claims: Record<string, unknown> = {}, iat = Math.floor(Date.now() / 1000)) {
  return new SignJWT({
    iss: ISSUER,
    aud: `${ISSUER}/v1/mcp`,
    sub: "user-1",
    client_id: "mcp_client",
    scope: "posts:read posts:write",
    site_id: SITE,
    gid: GRANT,
    kind: "agent",
    iat,
    exp: iat + 300,
    jti: "j1",
    ...claims,
  })
    .setProtectedHeader({ alg: "EdDSA", kid: key.kid, typ: "at+jwt" })
    .sign(key.privateKey);
}

beforeEach(() => {
  forgetJwksForTests();
  vi.useFakeTimers({ now: Date.parse("2026-11-29T00:00:00Z"), toFake: ["Date"] });
});
afterEach(() => vi.useRealTimers());

describe("agent tokens against identity's JWKS", () => {
  it("verifies identity's token and answers its claims; the key set is fetched once per 5 minutes", async () => {
    const current = await signingKey("k1");
    const { identity, state } = fakeIdentity([current]);
    expect(await verifyAgentToken(identity, ISSUER, await token(current))).toEqual({
      userId: "user-1",
      clientId: "mcp_client",
      siteId: SITE,
      grantId: GRANT,
      scopes: ["posts:read", "posts:write"],
    });
    await verifyAgentToken(identity, ISSUER, await token(current));
    expect(state.fetches).toBe(1);
    vi.setSystemTime(Date.now() + 5 * 60_000);
    await verifyAgentToken(identity, ISSUER, await token(current));
    expect(state.fetches).toBe(2);
  });

  it("an unknown kid refetches at once (a rotated key works), at most every 30 s (forged kids cannot hammer identity)", async () => {
    const old = await signingKey("old");
    const rotated = await signingKey("rotated");
    const { identity, state } = fakeIdentity([old]);
    await verifyAgentToken(identity, ISSUER, await token(old));
    state.keys = [old, rotated];
    expect(await verifyAgentToken(identity, ISSUER, await token(rotated))).not.toBeNull();
    expect(state.fetches).toBe(2);

    const forged = await signingKey("forged");
    expect(await verifyAgentToken(identity, ISSUER, await token(forged))).toBeNull();
    expect(await verifyAgentToken(identity, ISSUER, await token(forged))).toBeNull();
    expect(state.fetches).toBe(2);
    vi.setSystemTime(Date.now() + 30_000);
    expect(await verifyAgentToken(identity, ISSUER, await token(forged))).toBeNull();
    expect(state.fetches).toBe(3);
  });

  it("'expired' only for a token whose signature verified; a forged expired one is just invalid", async () => {
    const current = await signingKey("k1");
    const { identity } = fakeIdentity([current]);
    const past = Math.floor(Date.now() / 1000) - 600;
    expect(await verifyAgentToken(identity, ISSUER, await token(current, {}, past))).toBe("expired");
    const impostor = { ...(await signingKey("k1")), kid: "k1" };
    expect(await verifyAgentToken(identity, ISSUER, await token(impostor, {}, past))).toBeNull();
  });

  it("refuses an audience list, another kind, a malformed site or grant id, and a header alg other than EdDSA", async () => {
    const current = await signingKey("k1");
    const { identity } = fakeIdentity([current]);
    for (const claims of [
      { aud: [`${ISSUER}/v1/mcp`, "other"] },
      { kind: "staff" },
      { site_id: "not-an-id" },
      { gid: 42 },
      { scope: undefined },
    ]) {
      expect(
        await verifyAgentToken(identity, ISSUER, await token(current, claims)),
        JSON.stringify(claims),
      ).toBeNull();
    }
    const hs = await new SignJWT({ sub: "user-1" })
      .setProtectedHeader({ alg: "HS256", kid: "k1", typ: "at+jwt" })
      .sign(new TextEncoder().encode("a-shared-secret-of-enough-length!!"));
    expect(await verifyAgentToken(identity, ISSUER, hs)).toBeNull();
    // A valid token padded past the cap (a claim of junk) is refused unread, whatever its signature.
    const long = await token(current, { pad: "x".repeat(MAX_TOKEN_LENGTH) });
    expect(await verifyAgentToken(identity, ISSUER, long)).toBeNull();
    const fits = await token(current, { pad: "x".repeat(MAX_TOKEN_LENGTH / 2) });
    expect(await verifyAgentToken(identity, ISSUER, fits)).not.toBeNull();
  });
});
