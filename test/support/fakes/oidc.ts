/**
 * A real OpenID provider in the tests' outside world: `oidc-provider` (scripts/oidc-provider.mjs),
 * started once in Node on 127.0.0.1 and served to the workers as `https://idp.test` through the fake
 * internet (the identity worker reaches it only through its SSRF guard, which resolves idp.test in the
 * fake DNS to a public address). Accounts sign in at once by `login_hint` (the `?email=` of
 * /sso/start). Control (tests only, never forwarded):
 *   POST https://idp.test/__accounts  {email, email_verified?, name?, amr?, tamper?} -> {sub}
 * `tamper` makes the token endpoint answer an ID token the relying party must refuse: `nonce` (another
 * nonce), `aud` (another audience), `expired`, `iss` (another issuer), `none` (unsigned), `foreign`
 * (signed by a key not in the JWKS, same kid).
 */
import { randomUUID } from "node:crypto";
import { decodeJwt, decodeProtectedHeader, generateKeyPair, importJWK, SignJWT } from "jose";
import { type StartedOidcProvider, startOidcProvider } from "../../../scripts/oidc-provider.mjs";
import { fakeHost } from "../fake-internet.ts";
import { IDP_CLIENT, IDP_HOST, IDP_ISSUER, TEST_CALLBACK } from "../oidc-constants.ts";

type Tamper = "nonce" | "aud" | "expired" | "iss" | "none" | "foreign";

let started: Promise<StartedOidcProvider> | null = null;
const tampers = new Map<string, Tamper>();

function provider(): Promise<StartedOidcProvider> {
  started ??= startOidcProvider({
    issuer: IDP_ISSUER,
    autoLogin: true,
    unref: true,
    clients: [{ ...IDP_CLIENT, redirect_uris: [TEST_CALLBACK] }],
  });
  return started;
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

async function tampered(p: StartedOidcProvider, idToken: string, tamper: Tamper): Promise<string> {
  const claims = decodeJwt(idToken);
  const header = decodeProtectedHeader(idToken);
  const now = Math.floor(Date.now() / 1000);
  if (tamper === "none") return `${b64({ alg: "none", typ: "JWT" })}.${b64(claims)}.`;
  const changed = {
    ...claims,
    ...(tamper === "nonce" ? { nonce: "not-the-nonce-of-this-request" } : {}),
    ...(tamper === "aud" ? { aud: "another-client" } : {}),
    ...(tamper === "expired" ? { iat: now - 7200, exp: now - 3600 } : {}),
    ...(tamper === "iss" ? { iss: "https://evil.test" } : {}),
  };
  let key: Awaited<ReturnType<typeof importJWK>>;
  if (tamper === "foreign") {
    key = (await generateKeyPair("RS256")).privateKey;
  } else {
    key = await importJWK(p.signingKey as never, "RS256");
  }
  return new SignJWT(changed).setProtectedHeader({ alg: "RS256", kid: String(header.kid) }).sign(key);
}

async function forward(request: Request, url: URL): Promise<Response> {
  const p = await provider();
  if (url.pathname === "/__accounts" && request.method === "POST") {
    const input = (await request.json()) as { tamper?: Tamper; email: string; sub?: string };

    const account = p.addAccount({ sub: input.sub ?? randomUUID(), ...input });
    if (input.tamper) tampers.set(account.sub, input.tamper);
    return Response.json({ sub: account.sub });
  }
  const headers = new Headers(request.headers);
  for (const hop of ["host", "content-length", "connection", "transfer-encoding", "keep-alive", "expect"]) {
    headers.delete(hop);
  }
  headers.set("x-forwarded-proto", "https");
  headers.set("x-forwarded-host", IDP_HOST);
  const body =
    request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
  const res = await fetch(`${p.url}${url.pathname}${url.search}`, {
    method: request.method,
    headers,
    body,
    redirect: "manual",
  });
  if (url.pathname !== "/token" || res.status !== 200) {
    return new Response(res.status === 204 || res.status === 304 ? null : await res.arrayBuffer(), {
      status: res.status,
      headers: res.headers,
    });
  }
  const tokens = (await res.json()) as { id_token?: string };
  const sub = tokens.id_token ? String(decodeJwt(tokens.id_token).sub) : "";
  const tamper = tampers.get(sub);
  if (tokens.id_token && tamper) tokens.id_token = await tampered(p, tokens.id_token, tamper);
  return Response.json(tokens, { headers: { "cache-control": "no-store" } });
}

export function registerOidcFakes() {
  fakeHost(IDP_HOST, forward);
  // Started now, not on the first request: its start (the module's setup, an RSA key, a listening socket)
  // then never counts against a worker's outbound deadline. Unref'd, so a run that never uses it still ends;
  // a failed start fails the first request that needs it.
  provider().catch(() => {});
}
