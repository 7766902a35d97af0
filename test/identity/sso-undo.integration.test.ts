/**
 * The credential rule (docs/decisions/grant-endings.md): the SSO notice carries a one-click undo, as the account's factor and address notices do.
 * Written as the attack goes: someone with an owner's session (and its step-up) replaces the provider's
 * client and turns enforcement on; the real owners' mailed link puts the earlier configuration back, once,
 * only for that change, and never revives an SSO session the change ended. A link used twice, expired,
 * superseded by a later change, or another organization's answers like an unknown one.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, GOOD_PASSWORD, json, outbox, problem, withStepUp } from "../support/identity-helpers";
import { IDP_CLIENT, IDP_ISSUER } from "../support/oidc-constants";
import {
  callback,
  fragmentToken,
  idpAccount,
  type SsoOrg,
  ssoOrg,
  ssoSettings,
  throughProvider,
} from "../support/sso-helpers";

const db = () => (env as unknown as { DB: D1Database }).DB;

interface View {
  configured: boolean;
  issuer: string | null;
  client_id: string | null;
  enforced: boolean;
  allow_passwords: boolean;
  domains: { domain: string; verified: boolean }[];
}

/** The undo link of the newest SSO notice mailed to `owner`: its organization and token. */
async function undoLinkOf(owner: string) {
  const notice = (await outbox(owner)).find((m) => m.purpose === "sso_notice" && m.link);
  if (!notice?.link) throw new Error(`no undo link mailed to ${owner}`);
  const url = new URL(notice.link);
  expect(url.pathname).toBe("/auth/sso/undo");
  return { org: url.searchParams.get("org")!, token: url.searchParams.get("token")!, link: notice.link };
}

const undo = (orgId: string, token: string) =>
  call("POST", `/api/v1/auth/orgs/${orgId}/sso/undo`, { body: { token } });

const view = async (org: SsoOrg) =>
  json<View>(
    await call("GET", `/api/v1/auth/orgs/${org.orgId}/sso`, { token: org.owner.session.access_token }),
  );

/** The attacker's change, made with an owner's session and its step-up code. */
function change(org: SsoOrg, extra: Record<string, unknown>) {
  return withStepUp(org.owner.email, "PUT", `/api/v1/auth/orgs/${org.orgId}/sso`, {
    token: org.owner.session.access_token,
    body: ssoSettings(org.domain, extra),
  });
}

async function ssoSession(org: SsoOrg, local: string) {
  const email = `${local}-${crypto.randomUUID().slice(0, 6)}@${org.domain}`;
  await idpAccount({ email, name: "Member" });
  const flow = await throughProvider(`email=${encodeURIComponent(email)}`);
  const back = await callback(flow.path, flow.browser, flow.ip);
  expect(back.status).toBe(303);
  const res = await call("POST", "/api/v1/auth/sso/register", {
    body: {
      registration_token: fragmentToken(back, "register"),
      display_name: "Member",
      password: GOOD_PASSWORD,
    },
  });
  expect(res.status).toBe(201);
  return (await json<{ access_token: string }>(res)).access_token;
}

const orgsOf = (token: string) => call("GET", "/api/v1/auth/orgs", { token });

describe("the one-click undo of an SSO change", () => {
  it("a change's link puts the earlier configuration back, ends SSO sessions (never revives one), and works once", async () => {
    const org = await ssoOrg();
    const before = await ssoSession(org, "before");
    expect((await orgsOf(before)).status).toBe(200);

    const attacked = await change(org, {
      client_id: "attacker-client",
      enforced: true,
      allow_passwords: false,
    });
    expect(attacked.status).toBe(200);
    expect((await orgsOf(before)).status).toBe(401);
    const { org: linkOrg, token } = await undoLinkOf(org.owner.email);
    expect(linkOrg).toBe(org.orgId);

    const first = await undo(org.orgId, token);
    expect(first.status).toBe(200);
    expect(await json(first)).toEqual({ undone: "restored" });
    expect(await view(org)).toMatchObject({
      configured: true,
      issuer: IDP_ISSUER,
      client_id: IDP_CLIENT.client_id,
      enforced: false,
      allow_passwords: true,
      domains: [{ domain: org.domain, verified: true }],
    });
    // The session the change ended stays ended; the restored provider signs people in again.
    expect((await orgsOf(before)).status).toBe(401);
    expect((await orgsOf(await ssoSession(org, "after"))).status).toBe(200);
    // The owners are told of the undo.
    expect((await outbox(org.owner.email))[0]).toMatchObject({ purpose: "sso_notice", link: null });

    const again = await undo(org.orgId, token);
    expect(again.status).toBe(404);
    expect((await problem(again)).code).toBe("NOT_FOUND");
  });

  it("the link of a first set removes single sign-on", async () => {
    const org = await ssoOrg();
    const { token } = await undoLinkOf(org.owner.email);
    const res = await undo(org.orgId, token);
    expect(await json(res)).toEqual({ undone: "removed" });
    expect((await view(org)).configured).toBe(false);
  });

  it("bound to its change: superseded, expired, and another organization's links answer like an unknown one", async () => {
    const org = await ssoOrg();
    const other = await ssoOrg();
    expect((await change(org, { enforced: true })).status).toBe(200);
    const superseded = await undoLinkOf(org.owner.email);
    expect((await change(org, { enforced: true, allow_passwords: false })).status).toBe(200);
    const latest = await undoLinkOf(org.owner.email);
    expect(latest.token).not.toBe(superseded.token);
    const foreign = await undoLinkOf(other.owner.email);

    const unknown = await problem(await undo(org.orgId, "x".repeat(43)));
    expect(unknown.status).toBe(404);
    const unknownBody = { code: unknown.body.code, detail: unknown.body.detail };
    for (const token of [superseded.token, foreign.token]) {
      const res = await problem(await undo(org.orgId, token));
      expect([res.status, { code: res.body.code, detail: res.body.detail }]).toEqual([404, unknownBody]);
    }
    // Expired: past its 7 days.
    await db()
      .prepare("UPDATE sso_undos SET expires_at = ? WHERE org_id = ?")
      .bind(new Date(Date.now() - 1000).toISOString(), org.orgId)
      .run();
    const expired = await problem(await undo(org.orgId, latest.token));
    expect([expired.status, expired.body.detail]).toEqual([404, unknownBody.detail]);
    // Nothing was undone: the last change stands; the other organization's SSO too.
    expect(await view(org)).toMatchObject({ enforced: true, allow_passwords: false });
    expect((await view(other)).configured).toBe(true);
    // A malformed organization id is 400, before any token is looked at.
    expect((await problem(await undo("not-an-id", latest.token))).code).toBe("BAD_ORG");
  });

  it("20 concurrent uses of one link: one undo", async () => {
    const org = await ssoOrg();
    expect((await change(org, { enforced: true })).status).toBe(200);
    const { token } = await undoLinkOf(org.owner.email);
    const results = await Promise.all(Array.from({ length: 20 }, () => undo(org.orgId, token)));
    expect(results.map((r) => r.status).sort()).toEqual([200, ...Array(19).fill(404)]);
    expect((await view(org)).enforced).toBe(false);
  });

  it("the mailed link opens a page whose button undoes (a mail scanner's GET changes nothing)", async () => {
    const org = await ssoOrg();
    expect((await change(org, { enforced: true })).status).toBe(200);
    const { link, token } = await undoLinkOf(org.owner.email);
    const page = await call("GET", new URL(link).pathname + new URL(link).search);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("form-action 'self'");
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    const text = await page.text();
    const action = /<form method="post" action="([^"]+)">/.exec(text)?.[1]?.replaceAll("&amp;", "&") ?? "";
    expect(new URL(action, "http://x").searchParams.get("token")).toBe(token);
    expect((await view(org)).enforced).toBe(true);

    const posted = await call("POST", action);
    expect(posted.status).toBe(200);
    expect(await posted.text()).toContain("The earlier configuration is back.");
    expect((await view(org)).enforced).toBe(false);
    const replay = await call("POST", action);
    expect(replay.status).toBe(404);
    // What the page echoes from its query stays text.
    const hostile = await call("GET", "/auth/sso/undo?org=x&token=%22%3E%3Cscript%3Ealert(1)%3C%2Fscript%3E");
    expect(await hostile.text()).not.toContain("<script>alert(1)");
  });
});
