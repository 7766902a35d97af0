/**
 * Signing in through an organization's OpenID provider (issue 24 §1), end to end against a real
 * provider (`oidc-provider` as https://idp.test): start (PKCE, state, nonce), the callback's checks,
 * registration of an unknown person from a vouched domain, the address proof that links an existing
 * account, and every refusal (wrong state, replayed code, wrong nonce, wrong audience, expired token,
 * unsigned or foreign-key token, address not verified, domain not vouched).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  call,
  freshEmail,
  freshIp,
  GOOD_PASSWORD,
  json,
  latestCode,
  problem,
  signupVerified,
  withStepUp,
} from "../support/identity-helpers";
import {
  callback,
  cookieOf,
  fragmentToken,
  idpAccount,
  ssoOrg,
  throughProvider,
} from "../support/sso-helpers";

const db = () => (env as unknown as { DB: D1Database }).DB;

interface Session {
  access_token: string;
  user: { id: string; email: string };
}

async function registered(org: Awaited<ReturnType<typeof ssoOrg>>, local = "new") {
  const email = `${local}-${crypto.randomUUID().slice(0, 6)}@${org.domain}`;
  await idpAccount({ email, name: "New Person" });
  const flow = await throughProvider(`email=${encodeURIComponent(email)}`);
  const back = await callback(flow.path, flow.browser, flow.ip);
  expect(back.status).toBe(303);
  const token = fragmentToken(back, "register");
  const res = await call("POST", "/api/v1/auth/sso/register", {
    body: { registration_token: token, display_name: "New Person", password: GOOD_PASSWORD },
  });
  expect(res.status).toBe(201);
  return { email, session: await json<Session>(res) };
}

describe("SSO start", () => {
  it("an unknown organization and one without SSO answer the same 404", async () => {
    const owner = await signupVerified();
    const slug = `plain-${crypto.randomUUID().slice(0, 8)}`;
    await call("POST", "/api/v1/auth/orgs", {
      token: owner.session.access_token,
      body: { name: "Plain", slug },
    });
    const without = await call("GET", `/api/v1/auth/sso/start?org=${slug}`);
    const unknown = await call("GET", `/api/v1/auth/sso/start?org=nobody-${crypto.randomUUID().slice(0, 8)}`);
    const unknownDomain = await call("GET", "/api/v1/auth/sso/start?email=someone%40unknown-domain.test");
    expect(without.status).toBe(404);
    const body = await without.json();
    expect(await unknown.json()).toEqual(body);
    expect(await unknownDomain.json()).toEqual(body);
    expect(unknown.status).toBe(404);
    const neither = await call("GET", "/api/v1/auth/sso/start");
    expect((await problem(neither)).code).toBe("BAD_REQUEST");
  });

  it("redirects to the provider with code, PKCE S256, state and nonce, bound to the browser by a cookie", async () => {
    const org = await ssoOrg();
    const res = await call("GET", `/api/v1/auth/sso/start?org=${org.slug}`);
    expect(res.status).toBe(303);
    const url = new URL(res.headers.get("location") ?? "");
    expect(url.origin).toBe("https://idp.test");
    expect(url.searchParams.get("response_type")).toBe("code");
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get("state")).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(url.searchParams.get("nonce")).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(cookieOf(res, "svc_sso")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(res.headers.getSetCookie().join(";")).toMatch(/HttpOnly/i);
    const asJson = await call("GET", `/api/v1/auth/sso/start?email=a%40${org.domain}`, {
      headers: { accept: "application/json" },
    });
    expect(asJson.status).toBe(200);
    const { authorization_url } = await json<{ authorization_url: string }>(asJson);
    expect(new URL(authorization_url).searchParams.get("login_hint")).toBe(`a@${org.domain}`);
  });
});

describe("SSO start limit", () => {
  it("30 requests per client in 10 minutes, then 429 for known and unknown organizations alike", async () => {
    const org = await ssoOrg();
    const ip = freshIp();
    const answers = [];
    for (let i = 0; i < 30; i++) {
      answers.push(
        (await call("GET", `/api/v1/auth/sso/start?org=${i % 2 ? org.slug : "nobody-here"}`, { ip })).status,
      );
    }
    expect(answers.filter((s) => s === 429)).toEqual([]);
    const over = await call("GET", `/api/v1/auth/sso/start?org=${org.slug}`, { ip });
    expect((await problem(over)).code).toBe("RATE_LIMITED");
    const unknown = await call("GET", "/api/v1/auth/sso/start?org=nobody-here", { ip });
    expect(unknown.status).toBe(429);
    expect((await call("GET", `/api/v1/auth/sso/start?org=${org.slug}`, { ip: freshIp() })).status).toBe(303);
  });
});

describe("SSO sign-in", () => {
  it("an unknown person from a vouched domain registers (password policy), joins with the default role, then signs in directly", async () => {
    const org = await ssoOrg();
    const { email, session } = await registered(org);
    expect(session.user.email).toBe(email);
    const orgs = await json<{ items: { id: string; role: string }[] }>(
      await call("GET", "/api/v1/auth/orgs", { token: session.access_token }),
    );
    expect(orgs.items).toEqual([expect.objectContaining({ id: org.orgId, role: "org_member" })]);
    const method = await db()
      .prepare("SELECT auth_method, trusted_device FROM sessions WHERE user_id = ?")
      .bind(session.user.id)
      .first<{ auth_method: string; trusted_device: number }>();
    expect(method).toEqual({ auth_method: "sso", trusted_device: 0 });

    const again = await throughProvider(`org=${org.slug}&email=${encodeURIComponent(email)}`);
    const back = await callback(again.path, again.browser, again.ip);
    expect(back.status).toBe(303);
    expect(back.headers.get("location")).toBe("/auth/sso#done");
    expect(cookieOf(back, "svc_session")).toBeTruthy();
    expect(cookieOf(back, "svc_refresh")).toBeTruthy();
  });

  it("registration: the password policy applies; no password when the organization allows none; the token is single use", async () => {
    const org = await ssoOrg({ allow_passwords: false });
    const email = `p-${crypto.randomUUID().slice(0, 6)}@${org.domain}`;
    await idpAccount({ email });
    const flow = await throughProvider(`email=${encodeURIComponent(email)}`);
    const token = fragmentToken(await callback(flow.path, flow.browser, flow.ip), "register");
    const refused = await call("POST", "/api/v1/auth/sso/register", {
      body: { registration_token: token, password: GOOD_PASSWORD },
    });
    expect((await problem(refused)).code).toBe("BAD_REQUEST");
    const ok = await call("POST", "/api/v1/auth/sso/register", { body: { registration_token: token } });
    expect(ok.status).toBe(201);
    const user = await db()
      .prepare(
        "SELECT u.password_hash FROM users u JOIN email_addresses e ON e.user_id = u.id WHERE e.address = ?",
      )
      .bind(email)
      .first<{ password_hash: string | null }>();
    expect(user?.password_hash).toBeNull();
    const replay = await call("POST", "/api/v1/auth/sso/register", { body: { registration_token: token } });
    expect((await problem(replay)).code).toBe("SSO_TOKEN_INVALID");

    const withPasswords = await ssoOrg();
    const other = `q-${crypto.randomUUID().slice(0, 6)}@${withPasswords.domain}`;
    await idpAccount({ email: other });
    const flow2 = await throughProvider(`email=${encodeURIComponent(other)}`);
    const token2 = fragmentToken(await callback(flow2.path, flow2.browser, flow2.ip), "register");
    const weak = await call("POST", "/api/v1/auth/sso/register", {
      body: { registration_token: token2, password: "short" },
    });
    expect((await problem(weak)).code).toBe("PASSWORD_TOO_WEAK");
    const breached = await call("POST", "/api/v1/auth/sso/register", {
      body: { registration_token: token2, password: "password123456" },
    });
    expect((await problem(breached)).code).toBe("PASSWORD_BREACHED");
    const bogus = await call("POST", "/api/v1/auth/sso/register", { body: { registration_token: "nope" } });
    expect((await problem(bogus)).code).toBe("SSO_TOKEN_INVALID");
  });

  it("20 concurrent registrations with one token: one account, one winner", async () => {
    const org = await ssoOrg();
    const email = `race-${crypto.randomUUID().slice(0, 6)}@${org.domain}`;
    await idpAccount({ email });
    const flow = await throughProvider(`email=${encodeURIComponent(email)}`);
    const token = fragmentToken(await callback(flow.path, flow.browser, flow.ip), "register");
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        call("POST", "/api/v1/auth/sso/register", { body: { registration_token: token } }),
      ),
    );
    expect(answers.filter((r) => r.status === 201)).toHaveLength(1);
    expect(answers.filter((r) => r.status === 401)).toHaveLength(19);
    const count = await db()
      .prepare("SELECT COUNT(*) AS n FROM email_addresses WHERE address = ?")
      .bind(email)
      .first<{ n: number }>();
    expect(count?.n).toBe(1);
  });

  it("an existing account links only after proving its address with the e-mailed code", async () => {
    const org = await ssoOrg();
    const email = `have-${crypto.randomUUID().slice(0, 6)}@${org.domain}`;
    const existing = await signupVerified(email);
    await idpAccount({ email });
    const flow = await throughProvider(`email=${encodeURIComponent(email)}`);
    const back = await callback(flow.path, flow.browser, flow.ip);
    expect(cookieOf(back, "svc_session")).toBeNull();
    const token = fragmentToken(back, "link");
    const wrong = await call("POST", "/api/v1/auth/sso/link", {
      body: { link_token: token, code: "000000" },
    });
    expect((await problem(wrong)).code).toBe("CODE_INVALID");
    const code = await latestCode(email, "sso_link");
    const linked = await call("POST", "/api/v1/auth/sso/link", { body: { link_token: token, code } });
    expect(linked.status).toBe(200);
    const session = await json<Session>(linked);
    expect(session.user.id).toBe(existing.session.user.id);
    const again = await call("POST", "/api/v1/auth/sso/link", { body: { link_token: token, code } });
    expect((await problem(again)).code).toBe("SSO_TOKEN_INVALID");
    // Linked now: the next sign-in goes straight in.
    const next = await throughProvider(`email=${encodeURIComponent(email)}`);
    expect((await callback(next.path, next.browser, next.ip)).headers.get("location")).toBe("/auth/sso#done");
  });
});

describe("SSO refusals", () => {
  async function refusedWith(tamper: Parameters<typeof idpAccount>[0]["tamper"]) {
    const org = await ssoOrg();
    const email = `t-${crypto.randomUUID().slice(0, 6)}@${org.domain}`;
    await idpAccount({ email, tamper });
    const flow = await throughProvider(`email=${encodeURIComponent(email)}`);
    return problem(await callback(flow.path, flow.browser, flow.ip));
  }

  for (const tamper of ["nonce", "aud", "expired", "iss", "none", "foreign"] as const) {
    it(`an ID token with ${tamper === "none" ? "no signature" : tamper === "foreign" ? "a foreign key's signature" : `the wrong ${tamper}`} is refused (401)`, async () => {
      const refused = await refusedWith(tamper);
      expect(refused.status).toBe(401);
      expect(refused.code).toBe("SSO_SIGN_IN_FAILED");
    });
  }

  it("a wrong or unknown state, another browser's cookie and a replayed callback are refused", async () => {
    const org = await ssoOrg();
    const email = `s-${crypto.randomUUID().slice(0, 6)}@${org.domain}`;
    await idpAccount({ email });
    const flow = await throughProvider(`email=${encodeURIComponent(email)}`);
    const wrongState = flow.path.replace(/state=[^&]+/, "state=forged-state-value");
    expect((await problem(await callback(wrongState, flow.browser))).code).toBe("SSO_SIGN_IN_FAILED");
    const noState = flow.path.replace(/state=[^&]+&?/, "");
    expect((await problem(await callback(noState, flow.browser))).code).toBe("SSO_SIGN_IN_FAILED");

    const other = await throughProvider(`email=${encodeURIComponent(email)}`);
    expect((await problem(await callback(other.path, "another-browser"))).code).toBe("SSO_SIGN_IN_FAILED");

    const first = await callback(flow.path, flow.browser, flow.ip);
    expect(first.status).toBe(303);
    expect((await problem(await callback(flow.path, flow.browser, flow.ip))).code).toBe("SSO_SIGN_IN_FAILED");
  });

  it("a replayed code under a fresh state is refused by the provider (401)", async () => {
    const org = await ssoOrg();
    const email = `r-${crypto.randomUUID().slice(0, 6)}@${org.domain}`;
    await idpAccount({ email });
    const used = await throughProvider(`email=${encodeURIComponent(email)}`);
    expect((await callback(used.path, used.browser, used.ip)).status).toBe(303);
    const fresh = await throughProvider(`email=${encodeURIComponent(email)}`);
    const code = new URL(`http://x${used.path}`).searchParams.get("code") ?? "";
    const replay = fresh.path.replace(/code=[^&]+/, `code=${encodeURIComponent(code)}`);
    const refused = await problem(await callback(replay, fresh.browser, fresh.ip));
    expect(refused).toMatchObject({ status: 401, code: "SSO_SIGN_IN_FAILED" });
  });

  it("an address the provider did not verify, or outside the vouched domains, never creates or captures an account", async () => {
    const org = await ssoOrg();
    const unverified = `u-${crypto.randomUUID().slice(0, 6)}@${org.domain}`;
    await idpAccount({ email: unverified, email_verified: false });
    const flow = await throughProvider(`email=${encodeURIComponent(unverified)}`);
    expect(await problem(await callback(flow.path, flow.browser, flow.ip))).toMatchObject({
      status: 403,
      code: "SSO_DOMAIN_NOT_VOUCHED",
    });
    // A victim's address at a domain the organization has not proved: no link, no registration.
    const victim = await signupVerified(freshEmail("victim"));
    await idpAccount({ email: victim.email });
    const capture = await throughProvider(`org=${org.slug}&email=${encodeURIComponent(victim.email)}`);
    expect(await problem(await callback(capture.path, capture.browser, capture.ip))).toMatchObject({
      status: 403,
      code: "SSO_DOMAIN_NOT_VOUCHED",
    });
    expect(await latestCode(victim.email, "sso_link").catch(() => null)).toBeNull();
  });
});

describe("SSO sessions end with what granted them", () => {
  it("removing SSO or the member ends the session and its refresh; it never became a trusted device", async () => {
    const org = await ssoOrg();
    const a = await registered(org, "a");
    const b = await registered(org, "b");
    const orgsOf = (token: string) => call("GET", "/api/v1/auth/orgs", { token });
    expect((await orgsOf(b.session.access_token)).status).toBe(200);

    const removed = await call("DELETE", `/api/v1/auth/orgs/${org.orgId}/members/${b.session.user.id}`, {
      token: org.owner.session.access_token,
    });
    expect(removed.status).toBe(204);
    expect((await orgsOf(b.session.access_token)).status).toBe(401);

    expect((await orgsOf(a.session.access_token)).status).toBe(200);
    const off = await withStepUp(org.owner.email, "DELETE", `/api/v1/auth/orgs/${org.orgId}/sso`, {
      token: org.owner.session.access_token,
    });
    expect(off.status).toBe(204);
    expect((await orgsOf(a.session.access_token)).status).toBe(401);
    const refresh = await call("POST", "/api/v1/auth/refresh", {
      body: { refresh_token: (a.session as unknown as { refresh_token: string }).refresh_token },
    });
    expect((await problem(refresh)).code).toBe("REFRESH_FAILED");
    // The owner's own (password) session is untouched.
    expect((await orgsOf(org.owner.session.access_token)).status).toBe(200);
  });
});
