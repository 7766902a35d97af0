import { exports } from "cloudflare:workers";
import { identityClient } from "@site-platform/client";
import * as jose from "jose";
import * as oidc from "openid-client";
import { beforeAll, describe, expect, it } from "vitest";
import { BASE, PASSWORD, totpFor, uniqueEmail, verifiedUser } from "../support/platform";

/**
 * A relying party that knows only the issuer: it reads the discovery document, takes `jwks_uri` from it,
 * and verifies an access token with jose's remote JWKS (signature, `iss`, `aud`, `exp`). Every fetch goes
 * to the gateway Worker, as it would to the public origin.
 */
const edge = (url: string, init?: RequestInit) => exports.default.fetch(url, init);
const AUDIENCE = "site-platform";

let issuer: string;
let keySet: ReturnType<typeof jose.createRemoteJWKSet>;
let accessToken: string;

beforeAll(async () => {
  const config = await oidc.discovery(new URL(BASE), "relying-party", undefined, undefined, {
    execute: [oidc.allowInsecureRequests],
    [oidc.customFetch]: (url, init) => edge(url, init as RequestInit),
  });
  const metadata = config.serverMetadata();
  issuer = metadata.issuer;
  keySet = jose.createRemoteJWKSet(new URL(metadata.jwks_uri!), {
    [jose.customFetch]: (url, init) => edge(url, init as RequestInit),
  });

  // A real sign-in through the gateway, with the typed client: a verified account enrols TOTP, then logs
  // in with password and the next TOTP step (the enrolment's step is spent).
  const identity = identityClient({
    fetch: (request) => exports.default.fetch(request),
    baseUrl: "http://localhost:8787",
  });
  const email = uniqueEmail("jwks");
  const verified = await verifiedUser(email);
  const auth = { Authorization: `Bearer ${verified.access_token}` };
  const enrol = await identity.POST("/api/v1/auth/mfa/totp", { headers: auth });
  const totp = totpFor(enrol.data!.secret);
  await identity.POST("/api/v1/auth/mfa/totp/confirm", { headers: auth, body: { code: totp.generate() } });
  const login = await identity.POST("/api/v1/auth/login", {
    body: { email, password: PASSWORD, totp_code: totp.generate({ timestamp: Date.now() + 30_000 }) },
  });
  expect(login.response.status).toBe(200);
  accessToken = login.data!.access_token;
});

const verify = (token: string, options: jose.JWTVerifyOptions = {}) =>
  jose.jwtVerify(token, keySet, { issuer, audience: AUDIENCE, algorithms: ["EdDSA"], ...options });

describe("an access token verified by jose from the JWKS URL alone", () => {
  it("verifies: EdDSA signature from the published keys, issuer and audience", async () => {
    const { payload, protectedHeader } = await verify(accessToken);
    expect(issuer).toBe(BASE);
    expect(protectedHeader.alg).toBe("EdDSA");
    expect(payload).toMatchObject({ iss: BASE, aud: AUDIENCE, kind: "staff" });
    expect(payload.sub).toBeTruthy();
    expect(payload.exp! - payload.iat!).toBeGreaterThan(0);
  });

  it("refuses a token whose claims were altered after signing", async () => {
    const [header, payload, signature] = accessToken.split(".") as [string, string, string];
    const claims = JSON.parse(new TextDecoder().decode(jose.base64url.decode(payload)));
    const forged = jose.base64url.encode(JSON.stringify({ ...claims, sub: "01HZZZZZZZZZZZZZZZZZZZZZZZ" }));
    await expect(verify(`${header}.${forged}.${signature}`)).rejects.toBeInstanceOf(
      jose.errors.JWSSignatureVerificationFailed,
    );
    // One flipped signature byte is refused too.
    const bytes = jose.base64url.decode(signature);
    bytes[0]! ^= 1;
    await expect(verify(`${header}.${payload}.${jose.base64url.encode(bytes)}`)).rejects.toBeInstanceOf(
      jose.errors.JWSSignatureVerificationFailed,
    );
  });

  it("refuses a token signed by another key under a published kid", async () => {
    const { protectedHeader, payload } = await verify(accessToken);
    const { privateKey } = await jose.generateKeyPair("EdDSA", { crv: "Ed25519" });
    const foreign = await new jose.SignJWT(payload).setProtectedHeader(protectedHeader).sign(privateKey);
    await expect(verify(foreign)).rejects.toBeInstanceOf(jose.errors.JWSSignatureVerificationFailed);
  });

  it("refuses the token once expired, and for another issuer or audience", async () => {
    const { payload } = await verify(accessToken);
    const afterExpiry = new Date((payload.exp! + 1) * 1000);
    await expect(verify(accessToken, { currentDate: afterExpiry })).rejects.toBeInstanceOf(
      jose.errors.JWTExpired,
    );
    await expect(verify(accessToken, { issuer: "https://id.elsewhere.example" })).rejects.toBeInstanceOf(
      jose.errors.JWTClaimValidationFailed,
    );
    await expect(verify(accessToken, { audience: "another-api" })).rejects.toBeInstanceOf(
      jose.errors.JWTClaimValidationFailed,
    );
  });
});
