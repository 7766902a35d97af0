import { env } from "cloudflare:workers";
import * as oidc from "openid-client";
import { describe, expect, it } from "vitest";
import { fromBase64url } from "../../src/identity/core/crypto";
import { call, json, signupVerified, worker } from "../support/identity-helpers";

interface Jwk {
  kid: string;
  x: string;
  kty: string;
  crv: string;
}

const issuer = (env as unknown as { ISSUER: string }).ISSUER;

/** Verifies a compact JWS with WebCrypto only (no jose): the served JWKS is enough to trust our tokens. */
async function independentVerify(token: string, keys: Jwk[]) {
  const [h, p, s] = token.split(".");
  const header = JSON.parse(new TextDecoder().decode(fromBase64url(h!))) as { alg: string; kid: string };
  const jwk = keys.find((k) => k.kid === header.kid);
  if (!jwk || header.alg !== "EdDSA") return null;
  const key = await crypto.subtle.importKey(
    "jwk",
    { kty: jwk.kty, crv: jwk.crv, x: jwk.x },
    { name: "Ed25519" },
    false,
    ["verify"],
  );
  const ok = await crypto.subtle.verify(
    { name: "Ed25519" },
    key,
    fromBase64url(s!),
    new TextEncoder().encode(`${h}.${p}`),
  );
  return ok ? (JSON.parse(new TextDecoder().decode(fromBase64url(p!))) as Record<string, unknown>) : null;
}

describe("GET /.well-known/openid-configuration", () => {
  it("names the issuer, the JWKS and EdDSA", async () => {
    const res = await call("GET", "/.well-known/openid-configuration");
    expect(res.status).toBe(200);
    const doc = await json<Record<string, unknown>>(res);
    expect(doc.issuer).toBe(issuer);
    expect(doc.jwks_uri).toBe(`${issuer}/.well-known/jwks.json`);
    expect(doc.id_token_signing_alg_values_supported).toEqual(["EdDSA"]);
    expect(doc.token_endpoint).toBe(`${issuer}/api/v1/auth/refresh`);
    expect(doc.response_types_supported).toBeInstanceOf(Array);
    expect(doc.subject_types_supported).toEqual(["public"]);
  });

  it("passes openid-client discovery", async () => {
    const config = await oidc.discovery(new URL(issuer), "site-platform-test", undefined, undefined, {
      execute: [oidc.allowInsecureRequests],
      [oidc.customFetch]: (url: string, options: oidc.CustomFetchOptions) => {
        const path = new URL(url).pathname;
        return worker.fetch(
          new Request(`http://identity.test${path}`, { method: options.method, headers: options.headers }),
        );
      },
    });
    expect(config.serverMetadata().issuer).toBe(issuer);
    expect(config.serverMetadata().jwks_uri).toBe(`${issuer}/.well-known/jwks.json`);
  });
});

describe("GET /.well-known/jwks.json and access tokens", () => {
  it("publishes the public parts of current and next, never private material", async () => {
    const res = await call("GET", "/.well-known/jwks.json");
    expect(res.status).toBe(200);
    const { keys } = await json<{ keys: Jwk[] }>(res);
    const configured = JSON.parse((env as unknown as { JWT_SIGNING_KEYS: string }).JWT_SIGNING_KEYS);
    expect(keys.map((k: { kid: string }) => k.kid)).toEqual([configured.current.kid, configured.next.kid]);
    for (const k of keys) {
      expect(Object.keys(k).sort()).toEqual(["alg", "crv", "kid", "kty", "use", "x"]);
      expect(k).toMatchObject({ kty: "OKP", crv: "Ed25519", alg: "EdDSA", use: "sig" });
    }
  });

  it("issues tokens that an independent Ed25519 verifier accepts, with exactly the specified claims", async () => {
    const { session } = await signupVerified();
    const { keys } = await json<{ keys: Jwk[] }>(await call("GET", "/.well-known/jwks.json"));
    const claims = await independentVerify(session.access_token, keys);
    expect(claims).not.toBeNull();
    expect(Object.keys(claims!).sort()).toEqual(["aud", "exp", "iat", "iss", "jti", "kind", "sid", "sub"]);
    expect(claims).toMatchObject({
      iss: issuer,
      aud: "site-platform",
      sub: session.user.id,
      sid: session.session_id,
      kind: "staff",
    });
    expect((claims!.exp as number) - (claims!.iat as number)).toBe(900);
    const header = JSON.parse(new TextDecoder().decode(fromBase64url(session.access_token.split(".")[0]!)));
    expect(header).toMatchObject({ alg: "EdDSA", kid: "test-current" });
  });

  it("a tampered token is refused by the verifier and by identity", async () => {
    const { session } = await signupVerified();
    const [h, p, s] = session.access_token.split(".");
    const payload = JSON.parse(new TextDecoder().decode(fromBase64url(p!)));
    payload.sub = "01ARZ3NDEKTSV4RRFFQ69G5FAV";
    const forgedPayload = btoa(JSON.stringify(payload))
      .replace(/=+$/, "")
      .replace(/\+/g, "-")
      .replace(/\//g, "_");
    const forged = `${h}.${forgedPayload}.${s}`;
    const { keys } = await json<{ keys: Jwk[] }>(await call("GET", "/.well-known/jwks.json"));
    expect(await independentVerify(forged, keys)).toBeNull();
    const res = await call("GET", "/api/v1/auth/orgs", { token: forged });
    expect(res.status).toBe(401);
  });
});
