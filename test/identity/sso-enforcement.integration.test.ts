/**
 * Enforced SSO (issue 24 §1): a session that did not sign in through the organization's provider does
 * not carry that organization on the edge; an owner keeps a break-glass way in (password and second
 * factor), recorded once and told to every owner; an SSO session carries only its own organization.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { IdentityRpc } from "../../src/lib/rpc";
import {
  call,
  freshIp,
  GOOD_PASSWORD,
  json,
  outbox,
  staffUser,
  totpCode,
  worker,
} from "../support/identity-helpers";
import { callback, fragmentToken, idpAccount, ssoOrg, throughProvider } from "../support/sso-helpers";

const rpc = worker as unknown as IdentityRpc;
const db = () => (env as unknown as { DB: D1Database }).DB;

interface Session {
  access_token: string;
  session_id: string;
  user: { id: string; email: string };
}

const orgsOnEdge = async (s: Session) =>
  (await rpc.edgeContext({ user_id: s.user.id, session_id: s.session_id }))?.org_memberships.map(
    (m) => m.org_id,
  ) ?? [];

async function ssoMember(org: Awaited<ReturnType<typeof ssoOrg>>) {
  const email = `m-${crypto.randomUUID().slice(0, 6)}@${org.domain}`;
  await idpAccount({ email });
  const flow = await throughProvider(`email=${encodeURIComponent(email)}`);
  const token = fragmentToken(await callback(flow.path, flow.browser, flow.ip), "register");
  const res = await call("POST", "/api/v1/auth/sso/register", {
    body: { registration_token: token, password: GOOD_PASSWORD },
  });
  return { email, session: await json<Session>(res) };
}

describe("enforced SSO on the edge", () => {
  it("a member's password session does not carry the enforcing organization; the SSO session carries only it", async () => {
    const org = await ssoOrg({ enforced: true });
    const member = await ssoMember(org);
    expect(await orgsOnEdge(member.session)).toEqual([org.orgId]);
    // Another organization of the same person, without SSO.
    const other = await call("POST", "/api/v1/auth/orgs", {
      token: member.session.access_token,
      body: { name: "Own", slug: `own-${crypto.randomUUID().slice(0, 8)}` },
    });
    const otherId = (await json<{ id: string }>(other)).id;
    expect(await orgsOnEdge(member.session)).toEqual([org.orgId]);
    const password = await call("POST", "/api/v1/auth/login/start", {
      body: { email: member.email, password: GOOD_PASSWORD },
      ip: freshIp(),
    });
    // No second factor enrolled: the staff rule asks for one; sign in by magic link instead.
    expect(password.status).toBe(428);
    const magic = await call("POST", "/api/v1/auth/magic-link/request", {
      body: { email: member.email },
      ip: freshIp(),
    });
    expect(magic.status).toBe(202);
    const code = (await outbox(member.email)).find((m) => m.purpose === "magic_link")?.code ?? "";
    const verified = await call("POST", "/api/v1/auth/magic-link/verify", {
      body: { email: member.email, code },
      ip: freshIp(),
    });
    expect(verified.status).toBe(200);
    const plain = await json<Session>(verified);
    expect(await orgsOnEdge(plain)).toEqual([otherId]);
  });

  it("without enforcement a password session keeps the organization", async () => {
    const org = await ssoOrg({ enforced: false });
    expect(await orgsOnEdge(org.owner.session as Session)).toEqual([org.orgId]);
  });

  it("an owner's break-glass (password and TOTP) keeps the organization, recorded once, every owner told", async () => {
    const staff = await staffUser();
    const org = await ssoOrg({ enforced: true }, staff);
    // The owner's signup session (neither SSO nor password and second factor) loses the organization.
    expect(await orgsOnEdge(staff.session as Session)).toEqual([]);
    const login = await call("POST", "/api/v1/auth/login", {
      body: { email: staff.email, password: staff.password, totp_code: await totpCode(staff.secret, 1) },
      ip: freshIp(),
    });
    expect(login.status).toBe(200);
    const session = await json<Session>(login);
    expect(await orgsOnEdge(session)).toEqual([org.orgId]);
    expect(await orgsOnEdge(session)).toEqual([org.orgId]);
    await new Promise((r) => setTimeout(r, 200));
    const recorded = await db()
      .prepare("SELECT COUNT(*) AS n FROM sso_break_glass WHERE org_id = ?")
      .bind(org.orgId)
      .first<{ n: number }>();
    expect(recorded?.n).toBe(1);
    const notices = (await outbox(staff.email)).filter((m) => m.purpose === "sso_notice");
    expect(notices.map((m) => m.subject)).toContain(
      "An owner signed in to your organization without its single sign-on (break-glass)",
    );
  });
});
