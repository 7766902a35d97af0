/**
 * The consent API of MCP agents (issue 37, docs/decisions/oauth-agents.md "Consent") through the identity
 * Worker: what a request that cannot be trusted gets (a problem for the page, never a redirect), what the
 * client hears (a redirect with error, state and iss), the consent's owner, CSRF token, single use and
 * expiry, the sites and scopes allowed now, the proof asked for writing grants, 50 concurrent approvals,
 * the notice and its undo, and the code the token endpoint redeems.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { base64url } from "../../src/lib/base64url";
import { newId } from "../../src/lib/ids";
import type { SitesRpc } from "../../src/lib/rpc";
import {
  call,
  freshIp,
  json,
  latestCode,
  outbox,
  problem,
  type SessionBody,
  signupVerified,
} from "../support/identity-helpers";
import { createSiteAsOwner } from "../support/identity-sites";
import {
  clientDocument,
  defineDocumentHosts,
  documentUrl,
  publishDocument,
  register,
} from "../support/oauth-client-helpers";
import { ssoOrg } from "../support/sso-helpers";

const e = env as unknown as { DB: D1Database; ISSUER: string };
const CONSENTS = "/api/v1/auth/oauth/consents";
const REDIRECT = "http://127.0.0.1:33418/callback";
const RESOURCE = () => `${e.ISSUER}/v1/mcp`;

async function sha256b64url(value: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(value))));
}

interface ConsentBody {
  consent_id: string;
  csrf_token: string;
  expires_at: string;
  client: { id: string; name: string; origin: string | null; kind: string; verified: boolean };
  redirect_uri: string;
  requested_scopes: string[];
  sites: { site_id: string; name: string; host: string; allowed_scopes: string[] }[];
  warnings: { code: string; message: string }[];
  redirect?: string;
}

async function registeredClient(redirects = [REDIRECT]): Promise<string> {
  const { status, body } = await register(
    { redirect_uris: redirects, client_name: "Consent Agent", token_endpoint_auth_method: "none" },
    freshIp(),
  );
  expect(status).toBe(201);
  return body.client_id as string;
}

/** A person owning an organization and a site, signed in just now. */
async function owner() {
  const person = await signupVerified();
  const token = person.session.access_token;
  const org = await json<{ id: string }>(
    await call("POST", "/api/v1/auth/orgs", {
      token,
      body: { name: "Consent Org", slug: `co-${crypto.randomUUID().slice(0, 8)}` },
    }),
  );
  const siteId = await createSiteAsOwner(person.session.user.id, org.id);
  return { ...person, token, orgId: org.id, siteId };
}

async function pkce() {
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  return { verifier, challenge: await sha256b64url(verifier) };
}

async function request(clientId: string, extra: Record<string, string | undefined> = {}) {
  const { verifier, challenge } = await pkce();
  const params: Record<string, string | undefined> = {
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: `st-${crypto.randomUUID()}`,
    scope: "posts:read posts:write",
    ...extra,
  };
  for (const k of Object.keys(params)) if (params[k] === undefined) delete params[k];
  return { params, verifier };
}

async function open(token: string, params: Record<string, string | undefined>) {
  const res = await call("POST", CONSENTS, { token, body: params });
  return { res, body: await json<ConsentBody>(res.clone()) };
}

function approve(
  token: string,
  consent: { consent_id: string; csrf_token: string },
  body: Partial<{ site_id: string; scopes: string[]; csrf_token: string }>,
  headers: Record<string, string> = {},
) {
  return call("POST", `${CONSENTS}/${consent.consent_id}/approve`, {
    token,
    headers,
    body: { csrf_token: consent.csrf_token, ...body },
  });
}

function deny(token: string, consent: { consent_id: string; csrf_token: string }, csrf = consent.csrf_token) {
  return call("POST", `${CONSENTS}/${consent.consent_id}/deny`, { token, body: { csrf_token: csrf } });
}

async function consentCount(userId: string): Promise<number> {
  const row = await e.DB.prepare("SELECT COUNT(*) AS n FROM oauth_consents WHERE user_id = ?")
    .bind(userId)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

async function grantsOf(userId: string) {
  const { results } = await e.DB.prepare(
    "SELECT id, client_id, site_id, org_id, scope, resource, revoked_at, revoked_reason FROM oauth_grants WHERE user_id = ?",
  )
    .bind(userId)
    .all<{
      id: string;
      client_id: string;
      site_id: string;
      org_id: string;
      scope: string;
      resource: string;
      revoked_at: string | null;
      revoked_reason: string | null;
    }>();
  return results;
}

async function eventsOf(userId: string, type: string) {
  const { results } = await e.DB.prepare(
    "SELECT target, detail, method FROM security_events WHERE user_id = ? AND type = ? ORDER BY id",
  )
    .bind(userId, type)
    .all<{ target: string | null; detail: string | null; method: string | null }>();
  return results;
}

/** Makes the session's sign-in (its refresh family's first session) `minutes` old. */
async function ageSignIn(session: SessionBody, minutes: number) {
  const at = new Date(Date.now() - minutes * 60_000).toISOString();
  await e.DB.prepare(
    "UPDATE sessions SET created_at = ? WHERE family_id = (SELECT family_id FROM sessions WHERE id = ?)",
  )
    .bind(at, session.session_id)
    .run();
}

function redirectParams(redirect: string) {
  const url = new URL(redirect);
  expect(`${url.origin}${url.pathname}`).toBe(REDIRECT);
  return url.searchParams;
}

beforeAll(defineDocumentHosts);

describe("opening a consent", () => {
  it("shows the client as unverified, the exact redirect URI, the requested scopes and the person's sites with what the role allows", async () => {
    const o = await owner();
    const clientId = await registeredClient();
    const { params } = await request(clientId);
    const { res, body } = await open(o.token, params);
    expect(res.status).toBe(200);
    expect(body.redirect).toBeUndefined();
    expect(body.client).toMatchObject({
      id: clientId,
      name: "Consent Agent",
      kind: "registered",
      verified: false,
    });
    expect(body.client.origin).toBeNull();
    expect(body.redirect_uri).toBe(REDIRECT);
    expect(body.requested_scopes).toEqual(["posts:write", "posts:read"]);
    expect(body.warnings).toEqual([]);
    expect(body.csrf_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const site = body.sites.find((s) => s.site_id === o.siteId);
    expect(site?.host).toMatch(/^s-[a-z0-9]+\./);
    expect(site?.allowed_scopes).toEqual(expect.arrayContaining(["posts:write", "leads:read", "site:code"]));
    // Only the hash of the CSRF token is stored.
    const stored = await e.DB.prepare(
      "SELECT csrf_hash, expires_at, created_at FROM oauth_consents WHERE id = ?",
    )
      .bind(body.consent_id)
      .first<{ csrf_hash: string; expires_at: string; created_at: string }>();
    expect(stored?.csrf_hash).toBe(await sha256b64url(body.csrf_token));
    expect(Date.parse(stored!.expires_at) - Date.parse(stored!.created_at)).toBe(600_000);
  });

  it("a request without scope asks for every scope but leads:read", async () => {
    const o = await owner();
    const { params } = await request(await registeredClient(), { scope: undefined });
    const { body } = await open(o.token, params);
    expect(body.requested_scopes).not.toContain("leads:read");
    expect(body.requested_scopes).toEqual(
      expect.arrayContaining(["posts:read", "posts:write", "media:write"]),
    );
  });

  it("a member whose role allows nothing on a site is offered no site; a contributor is offered its site without leads", async () => {
    const o = await owner();
    const stranger = await signupVerified();
    const { params } = await request(await registeredClient());
    const none = await open(stranger.session.access_token, params);
    expect(none.res.status).toBe(200);
    expect(none.body.sites).toEqual([]);
    const contributor = await signupVerified();
    await e.DB.prepare(
      "INSERT INTO site_memberships (site_id, user_id, org_id, role, created_at) VALUES (?, ?, ?, 'site_contributor', ?)",
    )
      .bind(o.siteId, contributor.session.user.id, o.orgId, new Date().toISOString())
      .run();
    const offered = await open(contributor.session.access_token, params);
    const site = offered.body.sites.find((s) => s.site_id === o.siteId);
    expect(site?.allowed_scopes).toContain("posts:write");
    expect(site?.allowed_scopes).not.toContain("leads:read");
    expect(site?.allowed_scopes).not.toContain("site:write");
  });

  it("a site only shared with the person's organization, an archived and a deleted site are not offered", async () => {
    const o = await owner();
    const other = await owner();
    const sitesDb = (env as unknown as { TEST_SITES_DB: D1Database }).TEST_SITES_DB;
    const archived = await createSiteAsOwner(o.session.user.id, o.orgId);
    const deleted = await createSiteAsOwner(o.session.user.id, o.orgId);
    await sitesDb.batch([
      sitesDb.prepare("UPDATE sites SET status = 'archived' WHERE id = ?").bind(archived),
      sitesDb.prepare("UPDATE sites SET status = 'deleted' WHERE id = ?").bind(deleted),
      sitesDb
        .prepare("INSERT INTO site_shares (site_id, org_id, role, created_at) VALUES (?, ?, 'site_owner', ?)")
        .bind(other.siteId, o.orgId, new Date().toISOString()),
    ]);
    const { body } = await open(o.token, (await request(await registeredClient())).params);
    expect(body.sites.map((s) => s.site_id)).toEqual([o.siteId]);
    const shared = await approve(o.token, body, { site_id: other.siteId, scopes: ["posts:read"] });
    expect((await problem(shared)).code).toBe("FORBIDDEN");
  });

  it("the site registry's memberSites: only the named organizations' and sites' live sites; garbage names nothing", async () => {
    const o = await owner();
    const other = await owner();
    const sites = (env as unknown as { SITES: SitesRpc }).SITES;
    const mine = await sites.memberSites({ org_ids: [o.orgId], site_ids: [] });
    expect(mine.map((s) => [s.id, s.org_id])).toEqual([[o.siteId, o.orgId]]);
    expect(mine[0]?.host).toMatch(/^s-[a-z0-9]+\./);
    const bySite = await sites.memberSites({ org_ids: [], site_ids: [other.siteId.toLowerCase()] });
    expect(bySite.map((s) => s.id)).toEqual([other.siteId]);
    for (const garbage of [
      { org_ids: [], site_ids: [] },
      { org_ids: ["not-an-id", "' OR 1=1 --"], site_ids: ["%"] },
      { org_ids: "x", site_ids: null },
      null,
    ]) {
      expect(await sites.memberSites(garbage as never), JSON.stringify(garbage)).toEqual([]);
    }
  });

  it("SSO enforcement applies: a session without the organization's SSO is offered none of its sites and cannot approve one", async () => {
    const org = await ssoOrg({ enforced: true });
    const siteId = await createSiteAsOwner(org.owner.session.user.id, org.orgId);
    const token = org.owner.session.access_token;
    const { body: consent } = await open(token, (await request(await registeredClient())).params);
    expect(consent.sites.map((s) => s.site_id)).not.toContain(siteId);
    const res = await approve(token, consent, { site_id: siteId, scopes: ["posts:read"] });
    expect((await problem(res)).code).toBe("FORBIDDEN");
    expect(await grantsOf(org.owner.session.user.id)).toEqual([]);
    // The same session of an organization that does not enforce SSO is offered the site.
    const open2 = await ssoOrg({ enforced: false });
    const site2 = await createSiteAsOwner(open2.owner.session.user.id, open2.orgId);
    const offered = await open(
      open2.owner.session.access_token,
      (await request(await registeredClient())).params,
    );
    expect(offered.body.sites.map((s) => s.site_id)).toContain(site2);
  });

  it("an unknown client, a malformed client_id and a redirect URI not registered exactly are problems for the page, never redirects, and open nothing", async () => {
    const o = await owner();
    const clientId = await registeredClient();
    const cases: [Record<string, string | undefined>, string][] = [
      [{ client_id: `mcp_${newId()}` }, "OAUTH_CLIENT_INVALID"],
      [{ client_id: "not a client" }, "OAUTH_CLIENT_INVALID"],
      [{ client_id: undefined }, "OAUTH_CLIENT_INVALID"],
      [{ redirect_uri: undefined }, "OAUTH_REDIRECT_URI_INVALID"],
      [{ redirect_uri: `${REDIRECT}/` }, "OAUTH_REDIRECT_URI_INVALID"],
      [{ redirect_uri: `${REDIRECT}?x=1` }, "OAUTH_REDIRECT_URI_INVALID"],
      [{ redirect_uri: "http://127.0.0.1:33419/callback" }, "OAUTH_REDIRECT_URI_INVALID"],
      [{ redirect_uri: "https://evil.example/callback" }, "OAUTH_REDIRECT_URI_INVALID"],
      [{ redirect_uri: REDIRECT.toUpperCase() }, "OAUTH_REDIRECT_URI_INVALID"],
      // Even with other errors in the request: the redirect URI is never used before it is trusted.
      [{ redirect_uri: "https://evil.example/cb", response_type: "token" }, "OAUTH_REDIRECT_URI_INVALID"],
    ];
    for (const [extra, code] of cases) {
      const { params } = await request(clientId, extra);
      const res = await call("POST", CONSENTS, { token: o.token, body: params });
      const p = await problem(res);
      expect([p.status, p.code], JSON.stringify(extra)).toEqual([400, code]);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
      expect(JSON.stringify(p.body)).not.toContain("evil.example");
    }
    expect(await consentCount(o.session.user.id)).toBe(0);
  });

  it("every other error of the request goes back to the client: error, error_description, state and iss on the registered redirect URI", async () => {
    const o = await owner();
    const clientId = await registeredClient();
    const cases: [Record<string, string | undefined>, string][] = [
      [{ response_type: "token" }, "unsupported_response_type"],
      [{ response_type: undefined }, "unsupported_response_type"],
      [{ code_challenge_method: undefined }, "invalid_request"],
      [{ code_challenge_method: "plain" }, "invalid_request"],
      [{ code_challenge: undefined }, "invalid_request"],
      [{ code_challenge: "short" }, "invalid_request"],
      [{ code_challenge: `${"a".repeat(42)}=` }, "invalid_request"],
      [{ resource: "https://other.example/v1/mcp" }, "invalid_target"],
      [{ resource: `${e.ISSUER}/v1/mcp/` }, "invalid_target"],
      [{ scope: "posts:read admin:all" }, "invalid_scope"],
    ];
    for (const [extra, error] of cases) {
      const { params } = await request(clientId, extra);
      const { res, body } = await open(o.token, params);
      expect(res.status, JSON.stringify(extra)).toBe(200);
      const q = redirectParams(body.redirect!);
      expect(q.get("error"), JSON.stringify(extra)).toBe(error);
      expect(q.get("error_description")).toBeTruthy();
      expect(q.get("state")).toBe(params.state);
      expect(q.get("iss")).toBe(e.ISSUER);
      expect(q.get("code")).toBeNull();
    }
    expect(await consentCount(o.session.user.id)).toBe(0);
  });

  it("a state of 500 characters is kept; 501 is invalid_request without the state", async () => {
    const o = await owner();
    const clientId = await registeredClient();
    const ok = await open(o.token, (await request(clientId, { state: "s".repeat(500) })).params);
    expect(ok.body.consent_id).toBeTruthy();
    const long = await open(o.token, (await request(clientId, { state: "s".repeat(501) })).params);
    const q = redirectParams(long.body.redirect!);
    expect(q.get("error")).toBe("invalid_request");
    expect(q.get("state")).toBeNull();
  });

  it("resource absent or the MCP resource opens a consent", async () => {
    const o = await owner();
    const clientId = await registeredClient();
    for (const resource of [undefined, RESOURCE()]) {
      const { body } = await open(o.token, (await request(clientId, { resource })).params);
      expect(body.consent_id).toBeTruthy();
    }
  });

  it("needs a Bearer session; a malformed body is 400", async () => {
    const { params } = await request(await registeredClient());
    expect((await call("POST", CONSENTS, { body: params })).status).toBe(401);
    const o = await owner();
    const bad = await call("POST", CONSENTS, { token: o.token, body: { client_id: 42 } });
    expect(bad.status).toBe(400);
  });

  it("at most 20 consents open at once per person", async () => {
    const o = await owner();
    const clientId = await registeredClient();
    for (let i = 0; i < 20; i++) {
      expect((await open(o.token, (await request(clientId)).params)).res.status).toBe(200);
    }
    const over = await call("POST", CONSENTS, { token: o.token, body: (await request(clientId)).params });
    expect((await problem(over)).code).toBe("RATE_LIMITED");
  });

  it("a metadata-document client shows its URL's origin, and a loopback redirect is warned about", async () => {
    const o = await owner();
    const url = documentUrl();
    await publishDocument(url, clientDocument(url));
    const loopback = await open(o.token, (await request(url)).params);
    expect(loopback.body.client).toMatchObject({
      kind: "metadata_document",
      origin: "https://cimd.test",
      verified: false,
    });
    expect(loopback.body.warnings.map((w) => w.code)).toEqual(["loopback_redirect"]);
    expect(loopback.body.warnings[0]?.message).toMatch(/Any program on your computer can claim this address/);
    const https = await open(
      o.token,
      (await request(url, { redirect_uri: "https://agent.example/callback" })).params,
    );
    expect(https.body.warnings).toEqual([]);
    // A self-registered client with a loopback redirect is not a document: no claim of an origin to doubt.
    const registered = await open(o.token, (await request(await registeredClient())).params);
    expect(registered.body.warnings).toEqual([]);
  });
});

describe("approving", () => {
  it("writes the grant and its first code, decides the consent, records oauth_grant.created, mails the notice; the token endpoint redeems the code", async () => {
    const o = await owner();
    const clientId = await registeredClient();
    const { params, verifier } = await request(clientId);
    const { body: consent } = await open(o.token, params);
    const res = await approve(o.token, consent, { site_id: o.siteId, scopes: ["posts:read", "posts:write"] });
    expect(res.status).toBe(200);
    const q = redirectParams((await json<{ redirect: string }>(res)).redirect);
    expect(q.get("state")).toBe(params.state);
    expect(q.get("iss")).toBe(e.ISSUER);
    const code = q.get("code")!;
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const [grant] = await grantsOf(o.session.user.id);
    expect(grant).toMatchObject({
      client_id: clientId,
      site_id: o.siteId,
      org_id: o.orgId,
      scope: "posts:write posts:read",
      resource: RESOURCE(),
      revoked_at: null,
    });
    const stored = await e.DB.prepare("SELECT * FROM oauth_codes WHERE grant_id = ?").bind(grant!.id).first<{
      code_hash: string;
      redirect_uri: string;
      code_challenge: string;
      created_at: string;
      expires_at: string;
    }>();
    expect(stored?.code_hash).toBe(await sha256b64url(code));
    expect(stored?.redirect_uri).toBe(REDIRECT);
    expect(stored?.code_challenge).toBe(params.code_challenge);
    expect(Date.parse(stored!.expires_at) - Date.parse(stored!.created_at)).toBe(60_000);
    const decided = await e.DB.prepare("SELECT decided_at FROM oauth_consents WHERE id = ?")
      .bind(consent.consent_id)
      .first<{ decided_at: string | null }>();
    expect(decided?.decided_at).not.toBeNull();

    const events = await eventsOf(o.session.user.id, "oauth_grant.created");
    expect(events).toEqual([{ target: grant!.id, detail: expect.stringContaining(clientId), method: null }]);
    const listed = await json<{ items: { type: string }[] }>(
      await call("GET", "/api/v1/auth/events", { token: o.token }),
    );
    expect(listed.items.map((i) => i.type)).toContain("oauth_grant.created");

    const notice = (await outbox(o.email)).find((m) => m.purpose === "oauth_grant_notice");
    expect(notice?.subject).toContain("Consent Agent");
    expect(notice?.link).toMatch(new RegExp(`^${e.ISSUER}/auth/authorize/undo\\?token=`));

    const tokenRes = await call("POST", "/api/v1/auth/oauth/token", {
      rawBody: new URLSearchParams({
        grant_type: "authorization_code",
        code,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
        client_id: clientId,
      }).toString(),
      headers: { "content-type": "application/x-www-form-urlencoded" },
      ip: freshIp(),
    });
    expect(tokenRes.status).toBe(200);
    expect((await json<{ scope: string }>(tokenRes)).scope.split(" ").sort()).toEqual([
      "posts:read",
      "posts:write",
    ]);
  });

  it("another person's consent is the same 404 as a missing one; a malformed id too", async () => {
    const o = await owner();
    const other = await owner();
    const { body: consent } = await open(o.token, (await request(await registeredClient())).params);
    const foreign = await approve(other.token, consent, { site_id: other.siteId, scopes: ["posts:read"] });
    const missing = await approve(
      other.token,
      { ...consent, consent_id: newId() },
      { site_id: other.siteId, scopes: ["posts:read"] },
    );
    const malformed = await approve(
      other.token,
      { ...consent, consent_id: "x" },
      { site_id: other.siteId, scopes: ["posts:read"] },
    );
    expect(foreign.status).toBe(404);
    const foreignBody = await foreign.text();
    expect(foreignBody).toBe(await missing.text());
    expect(foreignBody).toBe(await malformed.text());
    expect((await deny(other.token, consent)).status).toBe(404);
    expect(await grantsOf(other.session.user.id)).toEqual([]);
    expect(await grantsOf(o.session.user.id)).toEqual([]);
  });

  it("a wrong or missing CSRF token is 403 and decides nothing", async () => {
    const o = await owner();
    const { body: consent } = await open(o.token, (await request(await registeredClient())).params);
    const wrong = await approve(o.token, consent, {
      site_id: o.siteId,
      scopes: ["posts:read"],
      csrf_token: `${consent.csrf_token.slice(0, -1)}${consent.csrf_token.endsWith("A") ? "B" : "A"}`,
    });
    expect((await problem(wrong)).code).toBe("CONSENT_CSRF_INVALID");
    const missing = await call("POST", `${CONSENTS}/${consent.consent_id}/approve`, {
      token: o.token,
      body: { site_id: o.siteId, scopes: ["posts:read"] },
    });
    expect(missing.status).toBe(400);
    expect((await problem(await deny(o.token, consent, "nope"))).code).toBe("CONSENT_CSRF_INVALID");
    expect(await grantsOf(o.session.user.id)).toEqual([]);
    // Still open: the right token approves.
    expect((await approve(o.token, consent, { site_id: o.siteId, scopes: ["posts:read"] })).status).toBe(200);
  });

  it("a decided consent is 409 to approve and to deny; a denied one too", async () => {
    const o = await owner();
    const clientId = await registeredClient();
    const { body: consent } = await open(o.token, (await request(clientId)).params);
    expect((await approve(o.token, consent, { site_id: o.siteId, scopes: ["posts:read"] })).status).toBe(200);
    const again = await approve(o.token, consent, { site_id: o.siteId, scopes: ["posts:read"] });
    expect((await problem(again)).code).toBe("CONSENT_DECIDED");
    expect((await problem(await deny(o.token, consent))).code).toBe("CONSENT_DECIDED");
    const { body: second } = await open(o.token, (await request(clientId)).params);
    expect((await deny(o.token, second)).status).toBe(200);
    const afterDeny = await approve(o.token, second, { site_id: o.siteId, scopes: ["posts:read"] });
    expect((await problem(afterDeny)).code).toBe("CONSENT_DECIDED");
    expect((await grantsOf(o.session.user.id)).length).toBe(1);
  });

  it("an expired consent is 409 CONSENT_EXPIRED and writes nothing", async () => {
    const o = await owner();
    const { body: consent } = await open(o.token, (await request(await registeredClient())).params);
    await e.DB.prepare("UPDATE oauth_consents SET expires_at = ? WHERE id = ?")
      .bind(new Date(Date.now() - 1000).toISOString(), consent.consent_id)
      .run();
    const res = await approve(o.token, consent, { site_id: o.siteId, scopes: ["posts:read"] });
    expect((await problem(res)).code).toBe("CONSENT_EXPIRED");
    expect((await problem(await deny(o.token, consent))).code).toBe("CONSENT_EXPIRED");
    expect(await grantsOf(o.session.user.id)).toEqual([]);
  });

  it("a site the person may not act on is 403; a scope not requested or not allowed by the role is 403 naming it; none or unknown is 400", async () => {
    const o = await owner();
    const other = await owner();
    const { body: consent } = await open(
      o.token,
      (await request(await registeredClient(), { scope: "posts:read posts:write leads:read" })).params,
    );
    const foreignSite = await approve(o.token, consent, { site_id: other.siteId, scopes: ["posts:read"] });
    expect((await problem(foreignSite)).code).toBe("FORBIDDEN");
    const notRequested = await approve(o.token, consent, {
      site_id: o.siteId,
      scopes: ["posts:read", "media:write"],
    });
    const p = await problem(notRequested);
    expect([p.status, p.code, p.body.details?.scopes]).toEqual([403, "SCOPE_NOT_ALLOWED", "media:write"]);
    expect((await problem(await approve(o.token, consent, { site_id: o.siteId, scopes: [] }))).code).toBe(
      "BAD_REQUEST",
    );
    expect(
      (await problem(await approve(o.token, consent, { site_id: o.siteId, scopes: ["root"] }))).code,
    ).toBe("BAD_REQUEST");

    // A contributor asked for leads:read: its role does not allow it.
    const contributor = await signupVerified();
    await e.DB.prepare(
      "INSERT INTO site_memberships (site_id, user_id, org_id, role, created_at) VALUES (?, ?, ?, 'site_contributor', ?)",
    )
      .bind(o.siteId, contributor.session.user.id, o.orgId, new Date().toISOString())
      .run();
    const ct = contributor.session.access_token;
    const { body: c2 } = await open(
      ct,
      (await request(await registeredClient(), { scope: "posts:read leads:read" })).params,
    );
    const leads = await approve(ct, c2, { site_id: o.siteId, scopes: ["posts:read", "leads:read"] });
    const lp = await problem(leads);
    expect([lp.status, lp.code, lp.body.details?.scopes]).toEqual([403, "SCOPE_NOT_ALLOWED", "leads:read"]);
    expect(await grantsOf(o.session.user.id)).toEqual([]);
    expect(await grantsOf(contributor.session.user.id)).toEqual([]);
  });

  it("the role is read again at approval: a member removed after the page opened cannot approve", async () => {
    const o = await owner();
    const editor = await signupVerified();
    await e.DB.prepare(
      "INSERT INTO site_memberships (site_id, user_id, org_id, role, created_at) VALUES (?, ?, ?, 'site_editor', ?)",
    )
      .bind(o.siteId, editor.session.user.id, o.orgId, new Date().toISOString())
      .run();
    const t = editor.session.access_token;
    const { body: consent } = await open(t, (await request(await registeredClient())).params);
    expect(consent.sites.map((s) => s.site_id)).toContain(o.siteId);
    await e.DB.prepare("DELETE FROM site_memberships WHERE site_id = ? AND user_id = ?")
      .bind(o.siteId, editor.session.user.id)
      .run();
    const res = await approve(t, consent, { site_id: o.siteId, scopes: ["posts:read"] });
    expect((await problem(res)).code).toBe("FORBIDDEN");
    expect(await grantsOf(editor.session.user.id)).toEqual([]);
  });

  it("a writing grant from a sign-in older than 10 minutes asks for the step-up code; a wrong code is refused; a reading grant does not ask", async () => {
    const o = await owner();
    await ageSignIn(o.session, 11);
    const clientId = await registeredClient();
    const { body: consent } = await open(o.token, (await request(clientId)).params);
    const body = { site_id: o.siteId, scopes: ["posts:read", "posts:write"] };
    const first = await approve(o.token, consent, body);
    const p = await problem(first);
    expect([p.status, p.code]).toEqual([428, "STEP_UP_REQUIRED"]);
    expect(await grantsOf(o.session.user.id)).toEqual([]);
    const wrong = await approve(o.token, consent, body, { "x-step-up-code": "000000" });
    expect((await problem(wrong)).code).toBe("CODE_INVALID");
    // The code is bound to its consent: one mailed for another consent's approval does not serve this one.
    const { body: other } = await open(o.token, (await request(clientId)).params);
    expect((await approve(o.token, other, body)).status).toBe(428);
    const otherCode = await latestCode(o.email, "sensitive_action");
    expect((await problem(await approve(o.token, consent, body, { "x-step-up-code": otherCode }))).code).toBe(
      "CODE_INVALID",
    );
    expect(await grantsOf(o.session.user.id)).toEqual([]);
    expect((await approve(o.token, consent, body)).status).toBe(428);
    const code = await latestCode(o.email, "sensitive_action");
    expect((await approve(o.token, consent, body, { "x-step-up-code": code })).status).toBe(200);

    const { body: reading } = await open(
      o.token,
      (await request(clientId, { scope: "posts:read sites:read" })).params,
    );
    const read = await approve(o.token, reading, { site_id: o.siteId, scopes: ["posts:read", "sites:read"] });
    expect(read.status).toBe(200);
  });

  it("a sign-in within the last 10 minutes approves a writing grant without a code; leads:read counts as more than reading", async () => {
    const o = await owner();
    await ageSignIn(o.session, 9);
    const { body: consent } = await open(
      o.token,
      (await request(await registeredClient(), { scope: "leads:read" })).params,
    );
    expect((await approve(o.token, consent, { site_id: o.siteId, scopes: ["leads:read"] })).status).toBe(200);
    const old = await owner();
    await ageSignIn(old.session, 30);
    const { body: c2 } = await open(
      old.token,
      (await request(await registeredClient(), { scope: "leads:read" })).params,
    );
    expect((await approve(old.token, c2, { site_id: old.siteId, scopes: ["leads:read"] })).status).toBe(428);
  });

  it("50 concurrent approvals of one consent: one grant, one code, one event, the rest 409", async () => {
    const o = await owner();
    const { body: consent } = await open(o.token, (await request(await registeredClient())).params);
    const answers = await Promise.all(
      Array.from({ length: 50 }, () =>
        approve(o.token, consent, { site_id: o.siteId, scopes: ["posts:read"] }),
      ),
    );
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(49);
    const grants = await grantsOf(o.session.user.id);
    expect(grants).toHaveLength(1);
    const codes = await e.DB.prepare("SELECT COUNT(*) AS n FROM oauth_codes WHERE grant_id = ?")
      .bind(grants[0]!.id)
      .first<{ n: number }>();
    expect(codes?.n).toBe(1);
    expect(await eventsOf(o.session.user.id, "oauth_grant.created")).toHaveLength(1);
    expect((await outbox(o.email)).filter((m) => m.purpose === "oauth_grant_notice")).toHaveLength(1);
  });
});

describe("denying", () => {
  it("sends the client access_denied with state and iss, and writes no grant", async () => {
    const o = await owner();
    const { params } = await request(await registeredClient());
    const { body: consent } = await open(o.token, params);
    const res = await deny(o.token, consent);
    expect(res.status).toBe(200);
    const q = redirectParams((await json<{ redirect: string }>(res)).redirect);
    expect([q.get("error"), q.get("state"), q.get("iss"), q.get("code")]).toEqual([
      "access_denied",
      params.state,
      e.ISSUER,
      null,
    ]);
    expect(await grantsOf(o.session.user.id)).toEqual([]);
  });
});

describe("the notice's undo link", () => {
  async function approved() {
    const o = await owner();
    const { body: consent } = await open(o.token, (await request(await registeredClient())).params);
    expect((await approve(o.token, consent, { site_id: o.siteId, scopes: ["posts:read"] })).status).toBe(200);
    const notice = (await outbox(o.email)).find((m) => m.purpose === "oauth_grant_notice");
    const token = new URL(notice!.link!).searchParams.get("token")!;
    return { o, token, grantId: (await grantsOf(o.session.user.id))[0]!.id };
  }

  it("revokes the grant and signs out every session without signing in; a second click changes nothing", async () => {
    const { o, token, grantId } = await approved();
    const res = await call("POST", "/api/v1/auth/oauth/undo", { body: { token }, ip: freshIp() });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ grant_id: grantId, outcome: "revoked" });
    const [grant] = await grantsOf(o.session.user.id);
    expect(grant?.revoked_reason).toBe("not_me");
    expect(grant?.revoked_at).not.toBeNull();
    expect((await call("GET", "/api/v1/auth/me", { token: o.token })).status).toBe(401);
    expect(await eventsOf(o.session.user.id, "oauth_grant.revoked")).toEqual([
      { target: grantId, detail: expect.stringContaining("client"), method: "not_me" },
    ]);
    expect(await eventsOf(o.session.user.id, "not_me_used")).toHaveLength(1);
    expect(await eventsOf(o.session.user.id, "sessions_revoked")).toHaveLength(1);

    // The person signs in again; the old link neither signs them out nor records anything.
    const again = await call("POST", "/api/v1/auth/oauth/undo", { body: { token }, ip: freshIp() });
    expect(await json(again)).toEqual({ grant_id: grantId, outcome: "already_ended" });
    expect(await eventsOf(o.session.user.id, "not_me_used")).toHaveLength(1);
    expect(await eventsOf(o.session.user.id, "sessions_revoked")).toHaveLength(1);
  });

  it("ten concurrent clicks revoke once: one revoked, the rest already_ended, one set of events", async () => {
    const { o, token } = await approved();
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        call("POST", "/api/v1/auth/oauth/undo", { body: { token }, ip: freshIp() }),
      ),
    );
    const outcomes = await Promise.all(answers.map((r) => json<{ outcome: string }>(r)));
    expect(outcomes.filter((x) => x.outcome === "revoked")).toHaveLength(1);
    expect(outcomes.filter((x) => x.outcome === "already_ended")).toHaveLength(9);
    expect(await eventsOf(o.session.user.id, "oauth_grant.revoked")).toHaveLength(1);
    expect(await eventsOf(o.session.user.id, "not_me_used")).toHaveLength(1);
    expect(await eventsOf(o.session.user.id, "sessions_revoked")).toHaveLength(1);
  });

  it("a tampered, foreign or expired token is 401 CODE_INVALID and revokes nothing", async () => {
    const { o, token } = await approved();
    const { token: otherToken, grantId: otherGrant } = await approved();
    const [grantPart, userPart, expires, mac] = token.split(".");
    const forged = [
      `${grantPart}.${userPart}.${Number(expires) + 1}.${mac}`,
      `${otherGrant}.${userPart}.${expires}.${mac}`,
      // The MAC's last hex digit changed (always a different digit: "replace it with 0" was no change one time in 16).
      `${grantPart}.${userPart}.${expires}.${mac!.slice(0, -1)}${mac!.endsWith("0") ? "1" : "0"}`,
      `${grantPart}.${userPart}.${Math.floor(Date.now() / 1000) - 10}.${mac}`,
      otherToken.split(".").slice(0, 3).concat(mac!).join("."),
      "x",
    ];
    for (const bad of forged) {
      const res = await call("POST", "/api/v1/auth/oauth/undo", { body: { token: bad }, ip: freshIp() });
      expect((await problem(res)).code, bad).toBe("CODE_INVALID");
    }
    expect((await grantsOf(o.session.user.id))[0]?.revoked_at).toBeNull();
    expect((await call("GET", "/api/v1/auth/me", { token: o.token })).status).toBe(200);
  });
});

describe("the page", () => {
  it("refuses to be framed, is never cached and sends no referrer (the URL carries the state)", async () => {
    const res = await call("GET", "/auth/authorize?response_type=code&client_id=x&state=secret");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    const text = await res.text();
    expect(text).toContain('src="/auth/assets/authorize.js"');
    // Nothing of the request is rendered by the server.
    expect(text).not.toContain("secret");
  });

  it("a request too long to come back through sign-in (over 2048 characters) is refused on the page at once", async () => {
    const base = "/auth/authorize?response_type=code&state=";
    const fits = await call("GET", `${base}${"s".repeat(2048 - base.length)}`);
    expect(fits.status).toBe(200);
    const over = await call("GET", `${base}${"s".repeat(2049 - base.length)}`);
    expect(over.status).toBe(400);
    expect(await over.text()).toContain("too long to carry through sign-in");
  });

  it("the undo page is a button, so a mail scanner fetching the link changes nothing", async () => {
    const res = await call("GET", "/auth/authorize/undo?token=abc");
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain("Revoke the agent and sign out everywhere");
    expect(text).toContain('src="/auth/assets/authorize-undo.js"');
  });
});
