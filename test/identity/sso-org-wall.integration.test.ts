/**
 * The credential rule (docs/decisions/grant-endings.md): an organization that enforces SSO is out of reach of a session that did not sign in
 * through its provider on identity's own organization routes too (members, invitations, transfers,
 * events), as it already is at the edge: such a session gets the route's non-member answer. The SSO
 * session passes; an owner's break-glass (password and TOTP) passes, recorded and told; the SSO
 * configuration stays reachable to owners; without enforcement nothing changes.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  call,
  freshEmail,
  freshIp,
  GOOD_PASSWORD,
  json,
  outbox,
  problem,
  signupVerified,
  staffUser,
  totpCode,
} from "../support/identity-helpers";
import { createSiteAsOwner } from "../support/identity-sites";
import { callback, fragmentToken, idpAccount, ssoOrg, throughProvider } from "../support/sso-helpers";

const e = env as unknown as IdentityEnv;
const db = () => e.DB;

async function ssoMemberSession(org: Awaited<ReturnType<typeof ssoOrg>>) {
  const email = `m-${crypto.randomUUID().slice(0, 6)}@${org.domain}`;
  await idpAccount({ email });
  const flow = await throughProvider(`email=${encodeURIComponent(email)}`);
  const token = fragmentToken(await callback(flow.path, flow.browser, flow.ip), "register");
  const res = await call("POST", "/api/v1/auth/sso/register", {
    body: { registration_token: token, password: GOOD_PASSWORD },
  });
  expect(res.status).toBe(201);
  return { email, token: (await json<{ access_token: string }>(res)).access_token };
}

/** A session of the account by magic link: neither SSO nor password and a second factor. */
async function plainSession(email: string): Promise<string> {
  const ip = freshIp();
  expect((await call("POST", "/api/v1/auth/magic-link/request", { body: { email }, ip })).status).toBe(202);
  const code = (await outbox(email)).find((m) => m.purpose === "magic_link")?.code ?? "";
  const verified = await call("POST", "/api/v1/auth/magic-link/verify", { body: { email, code }, ip });
  expect(verified.status).toBe(200);
  return (await json<{ access_token: string }>(verified)).access_token;
}

const members = (orgId: string, token: string) =>
  call("GET", `/api/v1/auth/orgs/${orgId}/members`, { token });

describe("enforced SSO on identity's organization routes", () => {
  it("a member's plain session gets the non-member answer; the SSO session passes", async () => {
    const org = await ssoOrg({ enforced: true });
    const member = await ssoMemberSession(org);
    expect((await members(org.orgId, member.token)).status).toBe(200);

    const plain = await plainSession(member.email);
    const refused = await problem(await members(org.orgId, plain));
    const stranger = await signupVerified();
    const outsider = await problem(await members(org.orgId, stranger.session.access_token));
    expect(refused.status).toBe(404);
    expect({ code: refused.code, detail: refused.body.detail }).toEqual({
      code: outsider.code,
      detail: outsider.body.detail,
    });
  });

  it("an owner: the plain session is refused on members, invitations, transfers and events but reaches the SSO settings; break-glass passes and is told", async () => {
    const staff = await staffUser();
    const org = await ssoOrg({ enforced: true }, staff);
    const plain = staff.session.access_token;
    const walled = [
      call("GET", `/api/v1/auth/orgs/${org.orgId}/members`, { token: plain }),
      call("POST", `/api/v1/auth/orgs/${org.orgId}/members`, {
        token: plain,
        body: { email: freshEmail("invitee"), role: "org_admin" },
      }),
      call("GET", `/api/v1/auth/orgs/${org.orgId}/invitations`, { token: plain }),
      call("GET", `/api/v1/auth/orgs/${org.orgId}/transfers`, { token: plain }),
      call("GET", `/api/v1/auth/orgs/${org.orgId}/events`, { token: plain }),
    ];
    for (const res of await Promise.all(walled)) expect(res.status).toBe(404);
    // Its sites' member routes too, with the answer a stranger gets.
    const siteId = await createSiteAsOwner(staff.session.user.id, org.orgId);
    const siteMembers = `/api/v1/auth/sites/${siteId}/members`;
    const refused = await problem(await call("GET", siteMembers, { token: plain }));
    const stranger = await signupVerified();
    const outsider = await problem(await call("GET", siteMembers, { token: stranger.session.access_token }));
    expect([refused.status, refused.body.detail]).toEqual([404, outsider.body.detail]);
    expect((await call("GET", `/api/v1/auth/orgs/${org.orgId}/sso`, { token: plain })).status).toBe(200);

    const login = await call("POST", "/api/v1/auth/login", {
      body: { email: staff.email, password: staff.password, totp_code: await totpCode(staff.secret, 1) },
      ip: freshIp(),
    });
    expect(login.status).toBe(200);
    const breakGlass = (await json<{ access_token: string }>(login)).access_token;
    expect((await members(org.orgId, breakGlass)).status).toBe(200);
    expect((await call("GET", siteMembers, { token: breakGlass })).status).toBe(200);
    const recorded = await db()
      .prepare("SELECT COUNT(*) AS n FROM sso_break_glass WHERE org_id = ?")
      .bind(org.orgId)
      .first<{ n: number }>();
    expect(recorded?.n).toBe(1);
    const told = (await outbox(staff.email)).filter((m) => m.purpose === "sso_notice");
    expect(told.map((m) => m.subject)).toContain(
      "An owner signed in to your organization without its single sign-on (break-glass)",
    );
  });

  it("an SSO session reaches only its organization; without enforcement a plain session is untouched", async () => {
    const enforcing = await ssoOrg({ enforced: true });
    const open = await ssoOrg({ enforced: false });
    const member = await ssoMemberSession(enforcing);
    const added = await call("POST", `/api/v1/auth/orgs/${open.orgId}/members`, {
      token: open.owner.session.access_token,
      body: { email: member.email, role: "org_member" },
    });
    expect(added.status).toBe(201);
    expect((await members(open.orgId, member.token)).status).toBe(404);
    expect((await members(open.orgId, open.owner.session.access_token)).status).toBe(200);
  });
});
