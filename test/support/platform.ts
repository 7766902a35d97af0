/**
 * Test helpers that drive the platform through the gateway only, as a client would (used by the
 * gateway and end-to-end projects, where the gateway is the worker under test).
 */
import { exports } from "cloudflare:workers";
import { TOTP } from "otpauth";
import { testIp } from "./client-ip";

export const BASE = "http://localhost:8787";
let counter = 0;

/**
 * A label part no other call makes: the clock alone collides (the files of a lane share one runtime and
 * its storage, and each file counts from 0 again), so a counter and 32 random bits go with it.
 */
function unique(): string {
  counter += 1;
  const random = crypto.getRandomValues(new Uint32Array(1))[0]!.toString(36);
  return `${Date.now().toString(36)}-${counter}-${random}`;
}

export interface CallResult<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
}

export async function call<T = Record<string, unknown>>(
  method: string,
  path: string,
  options: { body?: unknown; token?: string; headers?: Record<string, string> } = {},
): Promise<CallResult<T>> {
  // The running test's own client address unless the test names one (per-IP limits outlive a file).
  const headers: Record<string, string> = { "cf-connecting-ip": testIp(), ...options.headers };
  if (options.body !== undefined) headers["content-type"] = "application/json";
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const res = await exports.default.fetch(`${BASE}${path}`, {
    method,
    headers,
    body: options.body !== undefined ? JSON.stringify(options.body) : undefined,
  });
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = text;
  }
  return { status: res.status, headers: res.headers, body: body as T };
}

export function uniqueEmail(label = "user"): string {
  return `${label}-${unique()}@example.com`;
}

/**
 * The newest code of `purpose` e-mailed to `to`. Identity mails after it answers (signup, magic link and
 * reset do their address-dependent work in the background), so the outbox is polled briefly, as a
 * person waits for the message.
 */
export async function outboxCode(to: string, purpose: string): Promise<string> {
  let last: unknown = null;
  for (let attempt = 0; attempt < 50; attempt++) {
    const res = await call<{ messages: { purpose: string; code: string | null }[] }>(
      "GET",
      `/api/v1/auth/__dev/outbox?to=${encodeURIComponent(to)}`,
    );
    const message = res.body.messages.find((m) => m.purpose === purpose && m.code);
    if (message?.code) return message.code;
    last = res.body;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no ${purpose} code for ${to}: ${JSON.stringify(last)}`);
}

export interface Session {
  access_token: string;
  refresh_token: string;
  session_id: string;
  user: { id: string; email: string };
}

export const PASSWORD = "correct horse battery staple 42";

/** Signup -> the e-mail code from the dev outbox -> confirm: a verified account with a session. */
export async function verifiedUser(email = uniqueEmail()): Promise<Session> {
  const signup = await call("POST", "/api/v1/auth/signup", { body: { email, password: PASSWORD } });
  if (signup.status !== 202) throw new Error(`signup ${signup.status} ${JSON.stringify(signup.body)}`);
  const code = await outboxCode(email, "email_verify");
  const confirmed = await call<Session>("POST", "/api/v1/auth/email/verify/confirm", {
    body: { email, code },
  });
  if (confirmed.status !== 200)
    throw new Error(`confirm ${confirmed.status} ${JSON.stringify(confirmed.body)}`);
  return confirmed.body;
}

export async function createOrg(token: string, name = "Org") {
  const slug = `org-${unique()}`;
  const res = await call<{ id: string; slug: string }>("POST", "/api/v1/auth/orgs", {
    token,
    body: { name, slug },
  });
  if (res.status !== 201) throw new Error(`org ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export async function createSite(token: string, orgId: string) {
  const slug = `site-${unique()}`;
  const res = await call<{ id: string; slug: string; org_id: string }>("POST", "/api/v1/sites", {
    token,
    body: { org_id: orgId, name: "Site", slug, default_language: "en" },
  });
  if (res.status !== 201) throw new Error(`site ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/**
 * A new account joining the site as `role` through identity's site invitation: the owner invites, the
 * e-mailed link's token is accepted with a password, which signs the account in. `headers` go on the
 * acceptance (a fresh client address where a test accepts many).
 */
export async function joinSiteByInvitation(
  ownerToken: string,
  siteId: string,
  role: string,
  headers?: Record<string, string>,
): Promise<{ session: Session; email: string }> {
  const email = uniqueEmail(role);
  const invited = await call("POST", `/api/v1/auth/sites/${siteId}/invitations`, {
    token: ownerToken,
    body: { email, role },
  });
  if (invited.status !== 202) throw new Error(`invitation ${invited.status} ${JSON.stringify(invited.body)}`);
  const outbox = await call<{ messages: { purpose: string; link: string | null }[] }>(
    "GET",
    `/api/v1/auth/__dev/outbox?to=${encodeURIComponent(email)}`,
  );
  const link = outbox.body.messages.find((m) => m.purpose === "invitation")!.link!;
  const accepted = await call<Session>("POST", "/api/v1/auth/invitations/accept", {
    body: { token: new URL(link).searchParams.get("token"), password: PASSWORD },
    headers,
  });
  if (accepted.status !== 200) throw new Error(`accept ${accepted.status} ${JSON.stringify(accepted.body)}`);
  return { session: accepted.body, email };
}

/**
 * The operation sweeps' tenant: a verified owner, their organization and site, and a secret key on the
 * site holding every write scope (so each key-authenticated operation gets past authorization).
 */
export async function sweepTenant(keyName: string) {
  const owner = await verifiedUser();
  const org = await createOrg(owner.access_token);
  const site = await createSite(owner.access_token, org.id);
  const key = await call<{ key: string }>("POST", `/api/v1/sites/${site.id}/api-keys`, {
    token: owner.access_token,
    body: {
      name: keyName,
      kind: "secret",
      scopes: ["posts:write", "posts:read", "media:write", "seo:write", "site:write", "import"],
    },
  });
  if (key.status !== 201) throw new Error(`key ${key.status} ${JSON.stringify(key.body)}`);
  return { owner, org, site, key: key.body.key };
}

export function totpFor(secret: string): TOTP {
  return new TOTP({ secret, digits: 6, period: 30, algorithm: "SHA1" });
}

/** Turns on TOTP for the session's account (the access token alone: its first factor), and its generator. */
export async function enrolTotp(token: string): Promise<TOTP> {
  const enrol = await call<{ secret: string }>("POST", "/api/v1/auth/mfa/totp", { token });
  if (enrol.status !== 200) throw new Error(`totp ${enrol.status} ${JSON.stringify(enrol.body)}`);
  const totp = totpFor(enrol.body.secret);
  const confirmed = await call("POST", "/api/v1/auth/mfa/totp/confirm", {
    token,
    body: { code: totp.generate() },
  });
  if (confirmed.status !== 200)
    throw new Error(`totp confirm ${confirmed.status} ${JSON.stringify(confirmed.body)}`);
  return totp;
}
