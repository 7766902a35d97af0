/** Helpers for identity tests: requests through the real Worker, outbox reads, ready-made accounts. */
import { env, exports } from "cloudflare:workers";
import { expect } from "vitest";
import { base32Decode, totpAt } from "../../src/identity/factors/totp";
import { concatBytes } from "./bytes";
import { testIp, uniqueIp } from "./client-ip";

export const ORIGIN = "http://identity.test";

/**
 * A client IP no other call of this runtime got, so per-IP quotas of one test never touch another's (a
 * random address could repeat one another file used within a quota's window: the verify quota's is 10
 * minutes, longer than a whole run).
 */
export function freshIp(): string {
  return uniqueIp();
}

let emailCounter = 0;
export function freshEmail(tag = "user"): string {
  emailCounter += 1;
  return `${tag}-${Date.now().toString(36)}-${emailCounter}-${crypto.randomUUID().slice(0, 6)}@example.com`;
}

export const GOOD_PASSWORD = "a-long-and-unusual-passphrase-42";

export interface CallOptions {
  body?: unknown;
  rawBody?: string;
  token?: string;
  headers?: Record<string, string>;
  ip?: string;
}

export function request(method: string, path: string, opts: CallOptions = {}): Request {
  const headers = new Headers(opts.headers);
  headers.set("cf-connecting-ip", opts.ip ?? testIp());
  if (opts.token) headers.set("authorization", `Bearer ${opts.token}`);
  let body: string | undefined;
  if (opts.rawBody !== undefined) body = opts.rawBody;
  else if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined && !headers.has("content-type")) headers.set("content-type", "application/json");
  return new Request(`${ORIGIN}${path}`, { method, headers, body });
}

/**
 * Through the app the Worker entrypoint serves (IdentityService.fetch is `app.fetch(request, env, ctx)`)
 * with its real bindings, and waits for the work the request left in the background (`waitUntil`: the
 * e-mails of magic-link and reset requests), so a test reads the outbox after it settled.
 */
export async function call(method: string, path: string, opts: CallOptions = {}): Promise<Response> {
  const { app } = await import("../../src/identity/core/app");
  const { createExecutionContext, waitOnExecutionContext } = await import("cloudflare:test");
  const ctx = createExecutionContext();
  const res = await app.fetch(request(method, path, opts), env, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

/**
 * Like `call`, and also the time until the answer came (what a client can observe), measured before the
 * background work the request left behind is settled.
 */
export async function callTimed(
  method: string,
  path: string,
  opts: CallOptions = {},
): Promise<{ res: Response; ms: number }> {
  const { app } = await import("../../src/identity/core/app");
  const { createExecutionContext, waitOnExecutionContext } = await import("cloudflare:test");
  const ctx = createExecutionContext();
  const req = request(method, path, opts);
  const started = performance.now();
  const res = await app.fetch(req, env, ctx);
  const ms = performance.now() - started;
  await waitOnExecutionContext(ctx);
  return { res, ms };
}

/** A problem+json body as the identity service renders it. */
export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  code: string;
  detail?: string;
  details?: Record<string, string | number>;
}

/** The body of a response, typed by the caller (the assertions check it). */
export async function json<T = Record<string, unknown>>(res: Response): Promise<T> {
  return (await res.json()) as T;
}

/** The worker under test, as the runtime exposes it. */
export const worker = (exports as unknown as { default: Fetcher }).default;

export interface OutboxMessage {
  to: string;
  channel: string;
  purpose: string;
  code: string | null;
  link: string | null;
  subject: string;
  created_at: string;
}

export async function outbox(to: string): Promise<OutboxMessage[]> {
  const res = await call("GET", `/api/v1/auth/__dev/outbox?to=${encodeURIComponent(to)}`);
  if (res.status !== 200) throw new Error(`outbox ${res.status}`);
  return ((await res.json()) as { messages: OutboxMessage[] }).messages;
}

export async function latestCode(to: string, purpose: string): Promise<string> {
  const message = (await outbox(to)).find((m) => m.purpose === purpose);
  if (!message?.code) throw new Error(`no ${purpose} code for ${to}`);
  return message.code;
}

/**
 * A step-up operation as the owner performs it: the call, and when it answers 428 STEP_UP_REQUIRED, the
 * code mailed to `primary` in header X-Step-Up-Code on a second call (what the hosted pages do).
 */
export async function withStepUp(
  primary: string,
  method: string,
  path: string,
  opts: CallOptions = {},
): Promise<Response> {
  const first = await call(method, path, opts);
  if (first.status !== 428) return first;
  const code = await latestCode(primary, "sensitive_action");
  return call(method, path, { ...opts, headers: { ...opts.headers, "x-step-up-code": code } });
}

export interface SessionBody {
  access_token: string;
  refresh_token: string;
  token_type: "Bearer";
  expires_in: number;
  session_id: string;
  user: { id: string; email: string };
}

/** Signs up and confirms the address: an active account with a first session. */
export async function signupVerified(email = freshEmail(), password = GOOD_PASSWORD) {
  const ip = freshIp();
  const signup = await call("POST", "/api/v1/auth/signup", { body: { email, password }, ip });
  if (signup.status !== 202) throw new Error(`signup ${signup.status}: ${await signup.text()}`);
  const code = await latestCode(email, "email_verify");
  const res = await call("POST", "/api/v1/auth/email/verify/confirm", { body: { email, code }, ip });
  if (res.status !== 200) throw new Error(`confirm ${res.status}: ${await res.text()}`);
  return { email, password, session: (await res.json()) as SessionBody };
}

/**
 * A TOTP code for `offsetSteps` steps from now. A step is accepted once per account, so after one code
 * was used, the next login uses offset +1 (inside the ±1 drift window).
 */
export function totpCode(secret: string, offsetSteps = 0): Promise<string> {
  return totpAt(base32Decode(secret), Date.now() / 1000 + offsetSteps * 30);
}

/** A verified staff account with a confirmed TOTP factor; its confirmation burned the current step. */
export async function staffUser(email = freshEmail("staff"), password = GOOD_PASSWORD) {
  const { session } = await signupVerified(email, password);
  const enroll = await call("POST", "/api/v1/auth/mfa/totp", { token: session.access_token });
  if (enroll.status !== 200) throw new Error(`enroll ${enroll.status}`);
  const { secret } = (await enroll.json()) as { secret: string };
  const confirm = await call("POST", "/api/v1/auth/mfa/totp/confirm", {
    token: session.access_token,
    body: { code: await totpCode(secret) },
  });
  if (confirm.status !== 200) throw new Error(`confirm totp ${confirm.status}: ${await confirm.text()}`);
  const { recovery_codes } = (await confirm.json()) as { recovery_codes: string[] };
  return { email, password, secret, session, recoveryCodes: recovery_codes };
}

/** A well-formed id that names nothing: the "missing" side of a tenant wall's comparison. */
export const MISSING_ID = "01ARZ3NDEKTSV4RRFFQ69G5FAV";

/**
 * The tenant wall: `path(foreignId)`, someone else's row, answers `token`'s holder exactly as `path` of an id
 * that names nothing does (404, the same body).
 */
export async function expectForeignLikeMissing(
  method: string,
  path: (id: string) => string,
  foreignId: string,
  token: string,
): Promise<void> {
  const foreign = await call(method, path(foreignId), { token });
  const missing = await call(method, path(MISSING_ID), { token });
  expect(foreign.status).toBe(404);
  expect(await foreign.text()).toBe(await missing.text());
}

/** Accepts the invitation of `token` from a fresh IP (as many times as a test calls it). */
export function acceptInvitation(token: string): Promise<Response> {
  return call("POST", "/api/v1/auth/invitations/accept", { body: { token }, ip: freshIp() });
}

/**
 * `userId`'s role as an organization's or a site's member list shows it to `token`'s holder:
 * `scope` is `orgs/{id}` or `sites/{id}`.
 */
export async function memberRole(scope: string, token: string, userId: string): Promise<string | undefined> {
  const list = await json<{ items: { user_id: string; role: string }[] }>(
    await call("GET", `/api/v1/auth/${scope}/members`, { token }),
  );
  return list.items.find((m) => m.user_id === userId)?.role;
}

/** The ids of the pending invitations of `scope` (`orgs/{id}` or `sites/{id}`), as `token`'s holder lists them. */
export async function pendingInvitationIds(scope: string, token: string): Promise<string[]> {
  const list = await json<{ items: { id: string }[] }>(
    await call("GET", `/api/v1/auth/${scope}/invitations`, { token }),
  );
  return list.items.map((i) => i.id);
}

/**
 * The same app on the same real bindings, with some vars changed (a provider host that is down, a
 * setting switched): only configuration differs from `call`.
 */
export async function callWith(
  overrides: Record<string, string>,
  method: string,
  path: string,
  opts: CallOptions = {},
): Promise<Response> {
  const { app } = await import("../../src/identity/core/app");
  const { createExecutionContext } = await import("cloudflare:test");
  const { waitOnExecutionContext } = await import("cloudflare:test");
  const ctx = createExecutionContext();
  const res = await app.fetch(request(method, path, opts), { ...(env as object), ...overrides }, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

export async function problem(res: Response): Promise<{ status: number; code: string; body: ProblemBody }> {
  const body = (await res.json()) as ProblemBody;
  return { status: res.status, code: body.code, body };
}

// A software WebAuthn authenticator (ES256), enough to produce real assertions for passkey logins.

function b64url(bytes: Uint8Array): string {
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function unb64url(text: string): Uint8Array {
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/");
  const bin = atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

/** What a browser's authenticator signs over in a ceremony of `type`: its client data and the rpId's hash. */
async function ceremonyParts(
  type: "webauthn.create" | "webauthn.get",
  input: { challenge: string; origin: string; rpId: string },
): Promise<{ clientData: Uint8Array; rpIdHash: Uint8Array }> {
  const clientData = new TextEncoder().encode(
    JSON.stringify({ type, challenge: input.challenge, origin: input.origin, crossOrigin: false }),
  );
  const rpIdHash = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(input.rpId)),
  );
  return { clientData, rpIdHash };
}

/** Raw r||s (WebCrypto) to the DER SEQUENCE WebAuthn carries. */
function derSignature(raw: Uint8Array): Uint8Array {
  const integer = (bytes: Uint8Array) => {
    let i = 0;
    while (i < bytes.length - 1 && bytes[i] === 0) i++;
    let v: Uint8Array = bytes.slice(i);
    if (v[0]! & 0x80) v = concatBytes(new Uint8Array([0]), v);
    return concatBytes(new Uint8Array([0x02, v.length]), v);
  };
  const body = concatBytes(integer(raw.slice(0, 32)), integer(raw.slice(32)));
  return concatBytes(new Uint8Array([0x30, body.length]), body);
}

export async function softAuthenticator() {
  const pair = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
    "sign",
    "verify",
  ])) as CryptoKeyPair;
  const jwk = (await crypto.subtle.exportKey("jwk", pair.publicKey)) as JsonWebKey;
  // COSE_Key {1: 2 (EC2), 3: -7 (ES256), -1: 1 (P-256), -2: x, -3: y} in CBOR.
  const cose = concatBytes(
    new Uint8Array([0xa5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, 0x58, 0x20]),
    unb64url(jwk.x!),
    new Uint8Array([0x22, 0x58, 0x20]),
    unb64url(jwk.y!),
  );
  const rawId = crypto.getRandomValues(new Uint8Array(16));
  const credentialId = b64url(rawId);
  return {
    credentialId,
    publicKey: b64url(cose),
    /** A `none` attestation for navigator.credentials.create, as a browser would send it. */
    async attest(input: { challenge: string; origin: string; rpId: string; credProps?: { rk: boolean } }) {
      const { clientData, rpIdHash } = await ceremonyParts("webauthn.create", input);
      const authData = concatBytes(
        rpIdHash,
        new Uint8Array([0x45, 0, 0, 0, 0]),
        new Uint8Array(16),
        new Uint8Array([0, rawId.length]),
        rawId,
        cose,
      );
      const text = (t: string) => concatBytes(new Uint8Array([0x60 + t.length]), new TextEncoder().encode(t));
      const attestationObject = concatBytes(
        new Uint8Array([0xa3]),
        text("fmt"),
        text("none"),
        text("attStmt"),
        new Uint8Array([0xa0]),
        text("authData"),
        new Uint8Array([0x58, authData.length]),
        authData,
      );
      return {
        id: credentialId,
        rawId: credentialId,
        type: "public-key",
        response: {
          clientDataJSON: b64url(clientData),
          attestationObject: b64url(attestationObject),
          transports: ["internal"],
        },
        clientExtensionResults: input.credProps ? { credProps: input.credProps } : {},
      };
    },
    /** `flags` defaults to UP|UV (0x05); `userHandle` is what a discoverable credential returns. */
    async assert(input: {
      challenge: string;
      origin: string;
      rpId: string;
      counter: number;
      flags?: number;
      userHandle?: string;
    }) {
      const { clientData, rpIdHash } = await ceremonyParts("webauthn.get", input);
      const counter = new Uint8Array(4);
      new DataView(counter.buffer).setUint32(0, input.counter);
      const authData = concatBytes(rpIdHash, new Uint8Array([input.flags ?? 0x05]), counter);
      const clientHash = new Uint8Array(await crypto.subtle.digest("SHA-256", clientData));
      const raw = new Uint8Array(
        await crypto.subtle.sign(
          { name: "ECDSA", hash: "SHA-256" },
          pair.privateKey,
          concatBytes(authData, clientHash),
        ),
      );
      return {
        id: credentialId,
        rawId: credentialId,
        type: "public-key",
        response: {
          clientDataJSON: b64url(clientData),
          authenticatorData: b64url(authData),
          signature: b64url(derSignature(raw)),
          ...(input.userHandle ? { userHandle: input.userHandle } : {}),
        },
        clientExtensionResults: {},
      };
    },
  };
}

/** The passkey origin and relying party of the identity worker under test. */
export function webauthnParty(): { origin: string; rpId: string } {
  const e = env as unknown as IdentityEnv;
  return { origin: e.WEBAUTHN_ORIGIN.split(",")[0]!, rpId: e.WEBAUTHN_RP_ID };
}

/**
 * Registers a passkey as its owner does (issue 31: every registration costs the step-up): begin, the
 * code mailed to `owner.email` in X-Step-Up-Code on a second begin, then finish with a software
 * authenticator's attestation.
 */
export async function registerPasskey(
  owner: { email: string; session: { access_token: string } },
  options: { name?: string; credProps?: { rk: boolean } } = {},
) {
  const token = owner.session.access_token;
  const authenticator = await softAuthenticator();
  const begin = await withStepUp(owner.email, "POST", "/api/v1/auth/mfa/passkey/register/begin", {
    token,
    body: {},
  });
  if (begin.status !== 200) throw new Error(`passkey begin ${begin.status}: ${await begin.text()}`);
  const { publicKey } = await json<{ publicKey: { challenge: string } }>(begin);
  const credential = await authenticator.attest({
    challenge: publicKey.challenge,
    ...webauthnParty(),
    credProps: options.credProps,
  });
  const finish = await call("POST", "/api/v1/auth/mfa/passkey/register/finish", {
    token,
    body: { credential, name: options.name },
  });
  if (finish.status !== 201) throw new Error(`passkey finish ${finish.status}: ${await finish.text()}`);
  const passkey = await json<{ id: string; name: string | null; discoverable: boolean | null }>(finish);
  return { authenticator, credential, passkey };
}
