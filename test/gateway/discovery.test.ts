import { exports } from "cloudflare:workers";
import * as oidc from "openid-client";
import { describe, expect, it } from "vitest";
import { BASE, call, verifiedUser } from "../support/platform";

describe("OIDC discovery through the edge", () => {
  it("passes openid-client's discovery (issuer, JWKS, EdDSA)", async () => {
    const config = await oidc.discovery(new URL(BASE), "dashboard", undefined, undefined, {
      execute: [oidc.allowInsecureRequests],
      [oidc.customFetch]: (url, init) => exports.default.fetch(url, init as RequestInit),
    });
    const metadata = config.serverMetadata();
    expect(metadata.issuer).toBe(BASE);
    expect(metadata.jwks_uri).toBe(`${BASE}/.well-known/jwks.json`);
    expect(metadata.id_token_signing_alg_values_supported).toContain("EdDSA");
  });

  it("publishes the current and the next signing key, and the token's kid is among them", async () => {
    const jwks = await call<{ keys: { kid: string; kty: string; crv: string; alg?: string; d?: string }[] }>(
      "GET",
      "/.well-known/jwks.json",
    );
    expect(jwks.status).toBe(200);
    expect(jwks.body.keys.length).toBeGreaterThanOrEqual(2);
    for (const key of jwks.body.keys) {
      expect(key).toMatchObject({ kty: "OKP", crv: "Ed25519" });
      expect(key.d).toBeUndefined();
    }
    const session = await verifiedUser();
    const header = JSON.parse(
      atob(session.access_token.split(".")[0]!.replace(/-/g, "+").replace(/_/g, "/")),
    ) as {
      kid: string;
    };
    expect(jwks.body.keys.map((k) => k.kid)).toContain(header.kid);
  });
});
