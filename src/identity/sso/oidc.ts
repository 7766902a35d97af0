/**
 * The OpenID Connect relying party, on oauth4webapi (a maintained, certified library that runs in
 * Workers): discovery of the issuer, the authorization request (code, PKCE S256, state, nonce), and the
 * code exchange whose ID token is checked for issuer, audience, nonce, expiry (processAuthorizationCode-
 * Response) and signature against the provider's JWKS (validateApplicationLevelSignature). Every
 * request goes through the SSRF guard (outbound.ts).
 */
import * as oauth from "oauth4webapi";
import type { Env } from "../core/worker-env";
import { checkProviderUrl, providerFetch } from "./outbound";

export interface ProviderClient {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

/** The provider refused or failed the exchange, or its answer did not verify (a 401 to the caller). */
export class SignInRefused extends Error {
  constructor(readonly reason: string) {
    super(`sso sign-in refused: ${reason}`);
    this.name = "SignInRefused";
  }
}

function options(env: Env, issuer: string) {
  return {
    [oauth.customFetch]: providerFetch(env),
    [oauth.allowInsecureRequests]: checkProviderUrl(env, issuer).local,
  };
}

/** The provider's metadata, discovered from its issuer identifier (throws on any mismatch). */
export async function discover(env: Env, issuer: string): Promise<oauth.AuthorizationServer> {
  const id = new URL(issuer);
  const res = await oauth.discoveryRequest(id, options(env, issuer));
  // Awaited here, not returned: a rejection adopted a microtask later is reported as unhandled by the runtime.
  return await oauth.processDiscoveryResponse(id, res);
}

export async function authorizationUrl(
  as: oauth.AuthorizationServer,
  input: {
    clientId: string;
    redirectUri: string;
    state: string;
    nonce: string;
    verifier: string;
    loginHint?: string;
  },
): Promise<string> {
  if (!as.authorization_endpoint) throw new Error("provider has no authorization endpoint");
  const url = new URL(as.authorization_endpoint);
  const params: Record<string, string> = {
    client_id: input.clientId,
    redirect_uri: input.redirectUri,
    response_type: "code",
    scope: "openid email profile",
    state: input.state,
    nonce: input.nonce,
    code_challenge: await oauth.calculatePKCECodeChallenge(input.verifier),
    code_challenge_method: "S256",
    ...(input.loginHint ? { login_hint: input.loginHint } : {}),
  };
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return url.toString();
}

export interface VerifiedIdentity {
  subject: string;
  email: string | null;
  emailVerified: boolean;
  name: string | null;
  amr: string[];
}

/**
 * Exchanges the callback's code and verifies the ID token. Throws SignInRefused when the provider or
 * the token is refused; other errors (network) propagate.
 */
export async function completeSignIn(
  env: Env,
  client: ProviderClient,
  input: { callbackUrl: URL; state: string; nonce: string; verifier: string; redirectUri: string },
): Promise<VerifiedIdentity> {
  const opts = options(env, client.issuer);
  const as = await discover(env, client.issuer);
  const rp: oauth.Client = { client_id: client.clientId };
  let claims: oauth.IDToken | undefined;
  try {
    const params = oauth.validateAuthResponse(as, rp, input.callbackUrl, input.state);
    const res = await oauth.authorizationCodeGrantRequest(
      as,
      rp,
      oauth.ClientSecretBasic(client.clientSecret),
      params,
      input.redirectUri,
      input.verifier,
      opts,
    );
    const result = await oauth.processAuthorizationCodeResponse(as, rp, res, {
      expectedNonce: input.nonce,
      requireIdToken: true,
    });
    await oauth.validateApplicationLevelSignature(as, res, opts);
    claims = oauth.getValidatedIdTokenClaims(result);
  } catch (err) {
    if (err instanceof oauth.ResponseBodyError || err instanceof oauth.AuthorizationResponseError) {
      throw new SignInRefused(err.error);
    }
    if (err instanceof oauth.OperationProcessingError) throw new SignInRefused(`${err.code}: ${err.message}`);
    if (err instanceof TypeError || (err as Error).name === "OperationProcessingError") {
      throw new SignInRefused((err as Error).message);
    }
    throw err;
  }
  if (!claims) throw new SignInRefused("no_id_token");
  return {
    subject: claims.sub,
    email: typeof claims.email === "string" ? claims.email.toLowerCase() : null,
    emailVerified: claims.email_verified === true,
    name: typeof claims.name === "string" ? claims.name.slice(0, 120) : null,
    amr: Array.isArray(claims.amr) ? claims.amr.filter((a): a is string => typeof a === "string") : [],
  };
}
