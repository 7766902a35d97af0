import { describe, expect, it } from "vitest";
import { callWith, json, type SessionBody } from "../support/identity-helpers";

async function ed25519Jwk(kid: string): Promise<JsonWebKey & { kid: string }> {
  const pair = (await crypto.subtle.generateKey({ name: "Ed25519" }, true, [
    "sign",
    "verify",
  ])) as CryptoKeyPair;
  const jwk = (await crypto.subtle.exportKey("jwk", pair.privateKey)) as JsonWebKey;
  return { ...jwk, kid };
}

describe("signing key rotation", () => {
  it("tokens signed by the old current key keep working while it is published as `previous`", async () => {
    const a = await ed25519Jwk("k-a");
    const b = await ed25519Jwk("k-b");
    const c = await ed25519Jwk("k-c");
    const before = { JWT_SIGNING_KEYS: JSON.stringify({ current: a, next: b }) };
    // Rotation: next becomes current, a new next is generated, the old current stays published as previous.
    const after = {
      JWT_SIGNING_KEYS: JSON.stringify({
        current: b,
        next: c,
        previous: { kty: "OKP", crv: "Ed25519", x: a.x, kid: "k-a" },
      }),
    };
    const finalStep = { JWT_SIGNING_KEYS: JSON.stringify({ current: b, next: c }) };

    const email = `rot-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const ip = "192.0.2.77";
    await callWith(before, "POST", "/api/v1/auth/signup", {
      body: { email, password: "a-long-and-unusual-passphrase-42" },
      ip,
    });
    const { outbox } = await import("../support/identity-helpers");
    const code = (await outbox(email))[0]!.code!;
    const session = await json<SessionBody>(
      await callWith(before, "POST", "/api/v1/auth/email/verify/confirm", { body: { email, code }, ip }),
    );
    expect(
      JSON.parse(atob(session.access_token.split(".")[0]!.replace(/-/g, "+").replace(/_/g, "/"))).kid,
    ).toBe("k-a");

    const jwks = await json<{ keys: { kid: string }[] }>(
      await callWith(after, "GET", "/.well-known/jwks.json"),
    );
    expect(jwks.keys.map((k) => k.kid)).toEqual(["k-b", "k-c", "k-a"]);
    expect((await callWith(after, "GET", "/api/v1/auth/orgs", { token: session.access_token })).status).toBe(
      200,
    );
    // New tokens are signed by the promoted key.
    const rotated = await json<SessionBody>(
      await callWith(after, "POST", "/api/v1/auth/refresh", {
        body: { refresh_token: session.refresh_token },
      }),
    );
    expect(
      JSON.parse(atob(rotated.access_token.split(".")[0]!.replace(/-/g, "+").replace(/_/g, "/"))).kid,
    ).toBe("k-b");
    // Once `previous` is dropped, tokens of the retired key stop verifying.
    expect(
      (await callWith(finalStep, "GET", "/api/v1/auth/sessions", { token: session.access_token })).status,
    ).toBe(401);
    expect(
      (await callWith(finalStep, "GET", "/api/v1/auth/sessions", { token: rotated.access_token })).status,
    ).toBe(200);
  });
});
