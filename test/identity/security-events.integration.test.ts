/**
 * The account's and the organization's security events (issue 18, item 5): each written by a real
 * action through the Worker, read back through GET /auth/events and GET /auth/orgs/{org_id}/events.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { LOCKOUT } from "../../src/identity/core/config";
import { ipPrefix, userAgentFamily } from "../../src/identity/events/events";
import {
  type CallOptions,
  call,
  freshEmail,
  freshIp,
  GOOD_PASSWORD,
  json,
  latestCode,
  outbox,
  problem,
  signupVerified,
  softAuthenticator,
  staffUser,
  totpCode,
  worker,
} from "../support/identity-helpers";
import { createSiteAsOwner } from "../support/identity-sites";

const e = env as unknown as IdentityEnv;

interface EventItem {
  id: string;
  type: string;
  method: string | null;
  actor_user_id: string | null;
  target: string | null;
  detail: string | null;
  ip_prefix: string | null;
  user_agent: string | null;
  created_at: string;
}

interface Page {
  items: EventItem[];
  next_cursor: string | null;
}

const FIREFOX_LINUX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";

async function events(token: string, query = ""): Promise<Page> {
  const res = await call("GET", `/api/v1/auth/events${query}`, { token });
  expect(res.status).toBe(200);
  return json<Page>(res);
}

async function types(token: string): Promise<string[]> {
  return (await events(token, "?limit=100")).items.map((i) => i.type);
}

async function orgEvents(token: string, orgId: string, query = ""): Promise<Page> {
  const res = await call("GET", `/api/v1/auth/orgs/${orgId}/events${query}`, { token });
  expect(res.status).toBe(200);
  return json<Page>(res);
}

/** A step-up operation: asked without a code (428, a code is mailed), repeated with it. */
async function withStepUp(
  method: string,
  path: string,
  email: string,
  opts: CallOptions & { bodyCode?: boolean },
) {
  const first = await call(method, path, opts);
  expect(first.status).toBe(428);
  const code = await latestCode(email, "sensitive_action");
  if (opts.bodyCode) return call(method, path, { ...opts, body: { code } });
  return call(method, path, { ...opts, headers: { ...opts.headers, "x-step-up-code": code } });
}

async function orgOf(token: string) {
  const slug = `ev-${crypto.randomUUID().slice(0, 8)}`;
  const res = await call("POST", "/api/v1/auth/orgs", { token, body: { name: "Events", slug } });
  expect(res.status).toBe(201);
  return { id: (await json<{ id: string }>(res)).id, slug };
}

async function rowCount(sql: string, ...binds: unknown[]): Promise<number> {
  const row = await e.DB.prepare(sql)
    .bind(...binds)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

describe("the client as kept: a network prefix and browser/OS families", () => {
  it("reduces IPv4 to /24, IPv6 to /48, and anything else to nothing", () => {
    expect(ipPrefix("203.0.113.77")).toBe("203.0.113.0/24");
    expect(ipPrefix("2001:db8:abcd:12:1:2:3:4")).toBe("2001:db8:abcd::/48");
    expect(ipPrefix("2001:db8::1")).toBe("2001:db8:0::/48");
    expect(ipPrefix("::1")).toBe("0:0:0::/48");
    expect(ipPrefix("unknown")).toBeNull();
    expect(ipPrefix("300.1.1.1")).toBeNull();
    expect(ipPrefix("1:2:3:4:5:6:7:8:9")).toBeNull();
    expect(ipPrefix(null)).toBeNull();
  });

  it("reduces a user agent to browser and OS families", () => {
    expect(userAgentFamily(FIREFOX_LINUX)).toBe("Firefox on Linux");
    expect(
      userAgentFamily(
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0",
      ),
    ).toBe("Edge on Windows");
    expect(
      userAgentFamily(
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
      ),
    ).toBe("Safari on iOS");
    expect(userAgentFamily("curl/8.5.0")).toBe("curl on Other");
    expect(userAgentFamily("<script>alert(1)</script>")).toBe("Other on Other");
    expect(userAgentFamily(undefined)).toBeNull();
  });

  it("stores only the prefix and the families, never the address or the full user agent", async () => {
    const u = await signupVerified();
    const res = await call("POST", "/api/v1/auth/login/start", {
      body: { email: u.email, password: "wrong-password-123456" },
      ip: "198.51.100.23",
      headers: { "user-agent": FIREFOX_LINUX },
    });
    expect(res.status).toBe(401);
    const failed = (await events(u.session.access_token, "?type=sign_in_failed")).items;
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ ip_prefix: "198.51.100.0/24", user_agent: "Firefox on Linux" });
    const v6 = await call("POST", "/api/v1/auth/login/start", {
      body: { email: u.email, password: "wrong-password-123456" },
      ip: "2001:db8:1234:5678::9",
    });
    expect(v6.status).toBe(401);
    const [latest] = (await events(u.session.access_token, "?type=sign_in_failed")).items;
    expect(latest!.ip_prefix).toBe("2001:db8:1234::/48");
    const raw = await e.DB.prepare("SELECT * FROM security_events WHERE user_id = ?")
      .bind(u.session.user.id)
      .all();
    const text = JSON.stringify(raw.results);
    expect(text).not.toContain("198.51.100.23");
    expect(text).not.toContain("rv:128.0");
  });
});

describe("sign-in events", () => {
  it("records a phased sign-in with its method, a wrong second factor and a recovery-code sign-in", async () => {
    const u = await staffUser();
    const ip = freshIp();
    const start = async () =>
      json<{ challenge: string }>(
        await call("POST", "/api/v1/auth/login/start", {
          body: { email: u.email, password: u.password },
          ip,
        }),
      );
    const { challenge } = await start();
    const wrong = await call("POST", "/api/v1/auth/login/mfa/verify", {
      body: { challenge, method: "totp", code: "000000" },
      ip,
    });
    expect(wrong.status).toBe(401);
    const ok = await call("POST", "/api/v1/auth/login/mfa/verify", {
      body: { challenge, method: "totp", code: await totpCode(u.secret, 1) },
      ip,
    });
    expect(ok.status).toBe(200);
    const second = await start();
    const recovered = await call("POST", "/api/v1/auth/login/mfa/verify", {
      body: { challenge: second.challenge, method: "recovery_code", code: u.recoveryCodes[0] },
      ip,
    });
    expect(recovered.status).toBe(200);
    const items = (await events(u.session.access_token)).items;
    const signIns = items.filter((i) => i.type.startsWith("sign_in") || i.type === "recovery_code_used");
    expect(signIns.map((i) => [i.type, i.method])).toEqual([
      ["recovery_code_used", "recovery_code"],
      ["sign_in_succeeded", "password_recovery_code"],
      ["sign_in_succeeded", "password_totp"],
      ["sign_in_failed", "totp"],
      ["sign_in_succeeded", "email_verify"],
    ]);
  });

  it("records a wrong password and the lock; an unknown address records nothing and answers the same", async () => {
    const u = await signupVerified();
    const unknown = freshEmail("nobody");
    const before = await rowCount("SELECT COUNT(*) AS n FROM security_events");
    const miss = await call("POST", "/api/v1/auth/login/start", {
      body: { email: unknown, password: "wrong-password-123456" },
      ip: freshIp(),
    });
    expect(miss.status).toBe(401);
    const ip = freshIp();
    let last: Response | null = null;
    for (let i = 0; i <= LOCKOUT.threshold; i++) {
      last = await call("POST", "/api/v1/auth/login/start", {
        body: { email: u.email, password: "wrong-password-123456" },
        ip,
      });
    }
    expect(last!.status).toBe(423);
    const mine = (await events(u.session.access_token)).items;
    expect(mine.filter((i) => i.type === "sign_in_failed" && i.method === "password")).toHaveLength(
      LOCKOUT.threshold,
    );
    expect(mine.filter((i) => i.type === "sign_in_locked")).toHaveLength(1);
    // Every row written since belongs to this account: the unknown address left none.
    const since = await rowCount("SELECT COUNT(*) AS n FROM security_events");
    expect(since - before).toBeGreaterThanOrEqual(LOCKOUT.threshold + 1);
    expect(
      await rowCount(
        "SELECT COUNT(*) AS n FROM security_events WHERE type LIKE 'sign_in_%' AND method = 'password' AND user_id IS NULL",
      ),
    ).toBe(0);
  });

  it("records a magic-link sign-in and a wrong magic-link code", async () => {
    const u = await signupVerified();
    const ip = freshIp();
    await call("POST", "/api/v1/auth/magic-link/request", { body: { email: u.email }, ip });
    const code = await latestCode(u.email, "magic_link");
    const wrongCode = code === "000000" ? "111111" : "000000";
    const wrong = await call("POST", "/api/v1/auth/magic-link/verify", {
      body: { email: u.email, code: wrongCode },
      ip,
    });
    expect(wrong.status).toBe(401);
    const ok = await call("POST", "/api/v1/auth/magic-link/verify", { body: { email: u.email, code }, ip });
    expect(ok.status).toBe(200);
    const items = (await events(u.session.access_token)).items;
    expect(items.slice(0, 2).map((i) => [i.type, i.method])).toEqual([
      ["sign_in_succeeded", "magic_link"],
      ["sign_in_failed", "magic_link"],
    ]);
  });
});

describe("factor, recovery-code, password and session events", () => {
  it("records TOTP added and removed, recovery codes generated, phone and passkey added and removed", async () => {
    const u = await staffUser();
    const t = u.session.access_token;
    expect(await types(t)).toEqual(["recovery_codes_generated", "factor_added", "sign_in_succeeded"]);
    const regen = await withStepUp("POST", "/api/v1/auth/mfa/recovery-codes/generate", u.email, { token: t });
    expect(regen.status).toBe(200);
    const phone = `+1555${String(Math.floor(Math.random() * 1e7)).padStart(7, "0")}`;
    // The account has a TOTP: adding another factor costs the step-up (id-stepup).
    const start = await withStepUp("POST", "/api/v1/auth/mfa/phone/start", u.email, {
      token: t,
      body: { phone },
    });
    expect(start.status).toBe(202);
    const [sms] = await outbox(phone);
    expect(
      (await call("POST", "/api/v1/auth/mfa/phone/confirm", { token: t, body: { code: sms!.code } })).status,
    ).toBe(200);
    expect((await call("DELETE", "/api/v1/auth/mfa/phone", { token: t })).status).toBe(204);
    // A second removal changes nothing and records nothing.
    expect((await call("DELETE", "/api/v1/auth/mfa/phone", { token: t })).status).toBe(204);
    const authenticator = await softAuthenticator();
    const begin = await json<{ publicKey: { challenge: string } }>(
      await withStepUp("POST", "/api/v1/auth/mfa/passkey/register/begin", u.email, { token: t, body: {} }),
    );
    const credential = await authenticator.attest({
      challenge: begin.publicKey.challenge,
      origin: e.WEBAUTHN_ORIGIN.split(",")[0]!,
      rpId: e.WEBAUTHN_RP_ID,
    });
    const finish = await call("POST", "/api/v1/auth/mfa/passkey/register/finish", {
      token: t,
      body: { credential },
    });
    expect(finish.status).toBe(201);
    const passkeyId = (await json<{ id: string }>(finish)).id;
    const del = await withStepUp("DELETE", `/api/v1/auth/mfa/passkey/${passkeyId}`, u.email, { token: t });
    expect(del.status).toBe(204);
    const totpDel = await withStepUp("DELETE", "/api/v1/auth/mfa/totp", u.email, { token: t });
    expect(totpDel.status).toBe(204);
    const items = (await events(t)).items;
    expect(items.map((i) => [i.type, i.method])).toEqual([
      ["factor_removed", "totp"],
      ["factor_removed", "passkey"],
      ["factor_added", "passkey"],
      ["factor_removed", "sms"],
      ["factor_added", "sms"],
      ["recovery_codes_generated", null],
      ["recovery_codes_generated", null],
      ["factor_added", "totp"],
      ["sign_in_succeeded", "email_verify"],
    ]);
    expect(items[1]!.target).toBe(passkeyId);
  });

  it("records a password change, a password reset and revoked sessions", async () => {
    const u = await signupVerified();
    const t = u.session.access_token;
    const changed = await withStepUp("POST", "/api/v1/auth/password/change", u.email, {
      token: t,
      body: { current_password: u.password, new_password: `${GOOD_PASSWORD}-changed` },
    });
    expect(changed.status).toBe(204);
    const other = await json<{ session_id: string }>(
      await call("POST", "/api/v1/auth/magic-link/verify", {
        body: {
          email: u.email,
          code: await (async () => {
            await call("POST", "/api/v1/auth/magic-link/request", {
              body: { email: u.email },
              ip: freshIp(),
            });
            return latestCode(u.email, "magic_link");
          })(),
        },
        ip: freshIp(),
      }),
    );
    expect((await call("DELETE", `/api/v1/auth/sessions/${other.session_id}`, { token: t })).status).toBe(
      204,
    );
    // Revoking it again, or another account's session, is not found and records nothing.
    expect((await call("DELETE", `/api/v1/auth/sessions/${other.session_id}`, { token: t })).status).toBe(
      404,
    );
    const all = await withStepUp("DELETE", "/api/v1/auth/sessions?keep_current=true", u.email, { token: t });
    expect(all.status).toBe(204);
    const ip = freshIp();
    await call("POST", "/api/v1/auth/password/reset/request", { body: { email: u.email }, ip });
    const code = await latestCode(u.email, "password_reset");
    const reset = await call("POST", "/api/v1/auth/password/reset/confirm", {
      body: { email: u.email, code, new_password: `${GOOD_PASSWORD}-reset` },
      ip,
    });
    expect(reset.status).toBe(204);
    // The reset ended every session: read as the account through a fresh sign-in.
    await call("POST", "/api/v1/auth/magic-link/request", { body: { email: u.email }, ip: freshIp() });
    const fresh = await json<{ access_token: string }>(
      await call("POST", "/api/v1/auth/magic-link/verify", {
        body: { email: u.email, code: await latestCode(u.email, "magic_link") },
        ip: freshIp(),
      }),
    );
    const items = (await events(fresh.access_token)).items;
    expect(items.map((i) => [i.type, i.detail])).toEqual([
      ["sign_in_succeeded", null],
      ["password_reset", null],
      ["sessions_revoked", "others"],
      ["sessions_revoked", "one"],
      ["sign_in_succeeded", null],
      ["password_changed", null],
      ["sign_in_succeeded", null],
    ]);
  });
});

describe("the owner's undo of a factor someone else added", () => {
  it("records 'not me', the factor removed and every session revoked, in the undo's batch; a second click records nothing", async () => {
    const u = await signupVerified();
    const t = u.session.access_token;
    const phone = `+1555${String(Math.floor(Math.random() * 1e7)).padStart(7, "0")}`;
    // The account has no factor yet: the first one needs no step-up.
    const start = await call("POST", "/api/v1/auth/mfa/phone/start", { token: t, body: { phone } });
    expect(start.status).toBe(202);
    const [sms] = await outbox(phone);
    const confirm = await call("POST", "/api/v1/auth/mfa/phone/confirm", {
      token: t,
      body: { code: sms!.code },
    });
    expect(confirm.status).toBe(200);
    const notice = (await outbox(u.email)).find((m) => m.purpose === "factor_added_notice" && m.link);
    const token = new URL(notice!.link!).searchParams.get("token")!;
    const undo = () => call("POST", "/api/v1/auth/disown", { body: { token }, ip: freshIp() });
    expect((await undo()).status).toBe(204);
    expect((await undo()).status).toBe(204);
    const rows = await e.DB.prepare(
      "SELECT type, method, target, detail FROM security_events WHERE user_id = ? AND type != 'sign_in_succeeded' ORDER BY id",
    )
      .bind(u.session.user.id)
      .all<{ type: string; method: string | null; target: string | null; detail: string | null }>();
    const phoneId = rows.results[0]?.target;
    expect(rows.results.map((r) => [r.type, r.method, r.detail])).toEqual([
      ["factor_added", "sms", null],
      ["not_me_used", null, "phone"],
      ["factor_removed", "sms", null],
      ["sessions_revoked", null, "all"],
    ]);
    expect(rows.results[1]!.target).toBe(rows.results[2]!.target);
    expect(phoneId).toBeNull();
    expect(await rowCount("SELECT COUNT(*) AS n FROM phones WHERE user_id = ?", u.session.user.id)).toBe(0);
  });
});

describe("address events and the owner's 'not me'", () => {
  it("records added, verified, made primary, removed, and the one-click removal", async () => {
    const u = await signupVerified();
    const t = u.session.access_token;
    const add = async () => {
      const address = freshEmail("extra");
      const res = await call("POST", "/api/v1/auth/emails", {
        token: t,
        body: { email: address },
        ip: freshIp(),
      });
      expect(res.status).toBe(202);
      return { address, id: (await json<{ id: string }>(res)).id };
    };
    const second = await add();
    const verify = await call("POST", "/api/v1/auth/emails/verify", {
      token: t,
      body: { email: second.address, code: await latestCode(second.address, "email_add") },
      ip: freshIp(),
    });
    expect(verify.status).toBe(200);
    const primary = await withStepUp("POST", `/api/v1/auth/emails/${second.id}/primary`, u.email, {
      token: t,
      bodyCode: true,
    });
    expect(primary.status).toBe(200);
    const third = await add();
    expect((await call("DELETE", `/api/v1/auth/emails/${third.id}`, { token: t })).status).toBe(204);
    const fourth = await add();
    const notice = (await outbox(second.address)).find((m) => m.purpose === "email_added_notice" && m.link);
    const token = new URL(notice!.link!).searchParams.get("token")!;
    expect(
      (await call("POST", "/api/v1/auth/emails/disown", { body: { token }, ip: freshIp() })).status,
    ).toBe(204);
    // The link clicked twice: the address is gone, nothing more is recorded.
    expect(
      (await call("POST", "/api/v1/auth/emails/disown", { body: { token }, ip: freshIp() })).status,
    ).toBe(204);
    const rows = await e.DB.prepare(
      "SELECT type, target FROM security_events WHERE user_id = ? AND type != 'sign_in_succeeded' ORDER BY id",
    )
      .bind(u.session.user.id)
      .all<{ type: string; target: string }>();
    expect(rows.results.map((r) => [r.type, r.target])).toEqual([
      ["address_added", second.id],
      ["address_verified", second.id],
      ["address_made_primary", second.id],
      ["address_added", third.id],
      ["address_removed", third.id],
      ["address_added", fourth.id],
      ["not_me_used", fourth.id],
    ]);
  });
});

describe("organization events and their walls", () => {
  it("records invitations, memberships and roles for admins; 404 for a non-member, 403 without members:manage", async () => {
    const owner = await signupVerified();
    const ot = owner.session.access_token;
    const org = await orgOf(ot);
    const member = await signupVerified();
    const stranger = await signupVerified();
    const add = await call("POST", `/api/v1/auth/orgs/${org.id}/members`, {
      token: ot,
      body: { email: member.email, role: "org_member" },
    });
    expect(add.status).toBe(201);
    const invitee = freshEmail("invitee");
    const invite = await call("POST", `/api/v1/auth/orgs/${org.id}/members`, {
      token: ot,
      body: { email: invitee, role: "org_member" },
    });
    expect(invite.status).toBe(202);
    const invitationId = (await json<{ invitation_id: string }>(invite)).invitation_id;
    const revoked = await call("DELETE", `/api/v1/auth/orgs/${org.id}/invitations/${invitationId}`, {
      token: ot,
    });
    expect(revoked.status).toBe(204);
    const again = await call("DELETE", `/api/v1/auth/orgs/${org.id}/invitations/${invitationId}`, {
      token: ot,
    });
    expect(again.status).toBe(404);
    const invitee2 = freshEmail("invitee2");
    await call("POST", `/api/v1/auth/orgs/${org.id}/members`, {
      token: ot,
      body: { email: invitee2, role: "org_admin" },
    });
    const link = (await outbox(invitee2)).find((m) => m.purpose === "invitation")!.link!;
    const accept = await call("POST", "/api/v1/auth/invitations/accept", {
      body: { token: new URL(link).searchParams.get("token"), password: GOOD_PASSWORD },
      ip: freshIp(),
    });
    expect(accept.status).toBe(200);
    const patch = await call("PATCH", `/api/v1/auth/orgs/${org.id}/members/${member.session.user.id}`, {
      token: ot,
      body: { role: "org_admin" },
    });
    expect(patch.status).toBe(200);
    // The member's own sign-in and failures: account events, never the organization's.
    await call("POST", "/api/v1/auth/login/start", {
      body: { email: member.email, password: "wrong-password-123456" },
      ip: freshIp(),
    });
    const page = await orgEvents(ot, org.id);
    expect(page.items.map((i) => i.type)).toEqual([
      "role_changed",
      "invitation_accepted",
      "invitation_sent",
      "invitation_revoked",
      "invitation_sent",
      "member_added",
    ]);
    expect(page.items[0]).toMatchObject({
      actor_user_id: owner.session.user.id,
      target: member.session.user.id,
      detail: "org_admin",
      ip_prefix: null,
      user_agent: null,
    });
    expect(JSON.stringify(page)).not.toContain("sign_in");
    // The member (now admin) reads the organization's events, and still none of its own sign-ins.
    const asMember = await orgEvents(member.session.access_token, org.id);
    expect(asMember.items.map((i) => i.id)).toEqual(page.items.map((i) => i.id));
    // Removal: the member is gone; a member without members:manage gets 403, a stranger 404.
    const plain = await signupVerified();
    await call("POST", `/api/v1/auth/orgs/${org.id}/members`, {
      token: ot,
      body: { email: plain.email, role: "org_member" },
    });
    expect(
      await problem(
        await call("GET", `/api/v1/auth/orgs/${org.id}/events`, { token: plain.session.access_token }),
      ),
    ).toMatchObject({ status: 403, code: "FORBIDDEN" });
    const strangerAnswer = await problem(
      await call("GET", `/api/v1/auth/orgs/${org.id}/events`, { token: stranger.session.access_token }),
    );
    const missing = await problem(
      await call("GET", `/api/v1/auth/orgs/01ARZ3NDEKTSV4RRFFQ69G5FAV/events`, {
        token: stranger.session.access_token,
      }),
    );
    expect(strangerAnswer).toMatchObject({ status: 404, code: "NOT_FOUND" });
    expect(strangerAnswer.body).toEqual(missing.body);
    expect(
      (await call("DELETE", `/api/v1/auth/orgs/${org.id}/members/${plain.session.user.id}`, { token: ot }))
        .status,
    ).toBe(204);
    expect((await orgEvents(ot, org.id, "?type=member_removed")).items).toMatchObject([
      { type: "member_removed", target: plain.session.user.id },
    ]);
    expect((await call("GET", `/api/v1/auth/orgs/${org.id}/events`)).status).toBe(401);
  });

  it("records a transfer's offer and decision for both organizations", async () => {
    const a = await signupVerified();
    const b = await signupVerified();
    const from = await orgOf(a.session.access_token);
    const to = await orgOf(b.session.access_token);
    const siteId = await createSiteAsOwner(a.session.user.id, from.id);
    // A site member of the origin: invited to the site, role changed, removed; the origin's events.
    const siteInvitee = freshEmail("site-member");
    const invited = await call("POST", `/api/v1/auth/sites/${siteId}/invitations`, {
      token: a.session.access_token,
      body: { email: siteInvitee, role: "site_author" },
    });
    expect(invited.status).toBe(202);
    const siteLink = (await outbox(siteInvitee)).find((m) => m.purpose === "invitation")!.link!;
    const joined = await call("POST", "/api/v1/auth/invitations/accept", {
      body: { token: new URL(siteLink).searchParams.get("token"), password: GOOD_PASSWORD },
      ip: freshIp(),
    });
    expect(joined.status).toBe(200);
    const siteMemberId = (await json<{ user: { id: string } }>(joined)).user.id;
    const memberPath = `/api/v1/auth/sites/${siteId}/members/${siteMemberId}`;
    const ta = a.session.access_token;
    expect((await call("PATCH", memberPath, { token: ta, body: { role: "site_editor" } })).status).toBe(200);
    expect((await call("DELETE", memberPath, { token: ta })).status).toBe(204);
    expect((await call("DELETE", memberPath, { token: ta })).status).toBe(204);
    const siteItems = (await orgEvents(ta, from.id)).items;
    expect(siteItems.map((i) => [i.type, i.target, i.detail])).toEqual([
      ["member_removed", siteMemberId, `site ${siteId}`],
      ["role_changed", siteMemberId, `site_editor on site ${siteId}`],
      ["invitation_accepted", siteItems[2]!.target, "site_author"],
      ["invitation_sent", siteItems[2]!.target, `${siteInvitee} as site_author on site ${siteId}`],
    ]);
    const offer = async () => {
      const r = await call("POST", `/api/v1/auth/orgs/${from.id}/transfers`, {
        token: a.session.access_token,
        body: { site_id: siteId, to_org_slug: to.slug, mode: "transfer" },
      });
      expect(r.status).toBe(200);
      return (await json<{ id: string }>(r)).id;
    };
    const first = await offer();
    const reject = await call("POST", `/api/v1/auth/orgs/${to.id}/transfers/${first}/reject`, {
      token: b.session.access_token,
    });
    expect(reject.status).toBe(204);
    const second = await offer();
    const cancel = await call("POST", `/api/v1/auth/orgs/${from.id}/transfers/${second}/cancel`, {
      token: a.session.access_token,
    });
    expect(cancel.status).toBe(204);
    // Deciding a decided transfer changes nothing and records nothing.
    const late = await call("POST", `/api/v1/auth/orgs/${from.id}/transfers/${second}/cancel`, {
      token: a.session.access_token,
    });
    expect(late.status).toBe(409);
    const third = await offer();
    const accept = await call("POST", `/api/v1/auth/orgs/${to.id}/transfers/${third}/accept`, {
      token: b.session.access_token,
    });
    expect(accept.status).toBe(200);
    const expected = [
      ["transfer_accepted", third],
      ["transfer_offered", third],
      ["transfer_cancelled", second],
      ["transfer_offered", second],
      ["transfer_rejected", first],
      ["transfer_offered", first],
    ];
    const fromItems = (await orgEvents(a.session.access_token, from.id)).items.slice(0, expected.length);
    expect(fromItems.map((i) => [i.type, i.target])).toEqual(expected);
    const toItems = (await orgEvents(b.session.access_token, to.id)).items;
    expect(toItems.map((i) => [i.type, i.target])).toEqual(expected);
  });
});

describe("reading the events", () => {
  it("pages newest first by cursor, filters by type, and refuses a bad cursor or type", async () => {
    const u = await signupVerified();
    const t = u.session.access_token;
    for (let i = 0; i < 4; i++) {
      await call("POST", "/api/v1/auth/login/start", {
        body: { email: u.email, password: "wrong-password-123456" },
        ip: freshIp(),
      });
    }
    const all = (await events(t)).items;
    expect(all).toHaveLength(5);
    const ids = all.map((i) => i.id);
    expect([...ids].sort().reverse()).toEqual(ids);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: Page = await events(t, `?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.items.map((i) => i.id));
      cursor = page.next_cursor;
      pages += 1;
    } while (cursor);
    expect(seen).toEqual(ids);
    expect(pages).toBe(3);
    const failed = await events(t, "?type=sign_in_failed&limit=3");
    expect(failed.items.every((i) => i.type === "sign_in_failed")).toBe(true);
    expect(failed.items).toHaveLength(3);
    const rest = await events(t, `?type=sign_in_failed&cursor=${failed.next_cursor}`);
    expect(rest.items).toHaveLength(1);
    expect(rest.next_cursor).toBeNull();
    for (const query of [
      "?cursor=not-a-cursor",
      "?type=party",
      "?limit=0",
      "?limit=101",
      "?type=invitation_sent",
    ]) {
      expect(
        await problem(await call("GET", `/api/v1/auth/events${query}`, { token: t })),
        query,
      ).toMatchObject({
        status: 400,
        code: "BAD_REQUEST",
      });
    }
    expect((await call("GET", "/api/v1/auth/events")).status).toBe(401);
  });

  it("never shows one account's events to another, whatever the cursor or filter", async () => {
    const a = await signupVerified();
    const b = await signupVerified();
    await call("POST", "/api/v1/auth/login/start", {
      body: { email: a.email, password: "wrong-password-123456" },
      ip: freshIp(),
    });
    const aItems = (await events(a.session.access_token)).items;
    expect(aItems.length).toBe(2);
    const bItems = (await events(b.session.access_token)).items;
    expect(bItems.map((i) => i.type)).toEqual(["sign_in_succeeded"]);
    const aIds = new Set(aItems.map((i) => i.id));
    expect(bItems.some((i) => aIds.has(i.id))).toBe(false);
    // A's newest id as B's cursor reaches only B's older events.
    const past = await events(
      b.session.access_token,
      `?cursor=${"7ZZZZZZZZZZZZZZZZZZZZZZZZZ"}&type=sign_in_failed`,
    );
    expect(past.items).toEqual([]);
  });
});

describe("append-only, atomic, and kept for the retention only", () => {
  it("refuses an UPDATE of an event", async () => {
    const u = await signupVerified();
    await expect(
      e.DB.prepare("UPDATE security_events SET type = 'x' WHERE user_id = ?").bind(u.session.user.id).run(),
    ).rejects.toThrow(/append-only/);
  });

  it("writes the event iff the change committed: a lost race, a refused change and a failed batch record nothing", async () => {
    const u = await signupVerified();
    const t = u.session.access_token;
    // The last verified address cannot go: 409, and no address_removed.
    const [primary] = (
      await json<{ items: { id: string }[] }>(await call("GET", "/api/v1/auth/emails", { token: t }))
    ).items;
    expect((await call("DELETE", `/api/v1/auth/emails/${primary!.id}`, { token: t })).status).toBe(409);
    // 20 concurrent removals of one pending address: one change, one event.
    const address = freshEmail("race");
    const added = await call("POST", "/api/v1/auth/emails", {
      token: t,
      body: { email: address },
      ip: freshIp(),
    });
    const id = (await json<{ id: string }>(added)).id;
    await Promise.all(
      Array.from({ length: 20 }, () => call("DELETE", `/api/v1/auth/emails/${id}`, { token: t })),
    );
    expect((await events(t, "?type=address_removed")).items).toHaveLength(1);
    // Another account proves the address first: the verification's batch fails, and its event with it.
    const contested = freshEmail("contested");
    const other = await signupVerified();
    for (const who of [u, other]) {
      const r = await call("POST", "/api/v1/auth/emails", {
        token: who.session.access_token,
        body: { email: contested },
        ip: freshIp(),
      });
      expect(r.status).toBe(202);
    }
    const codes = (await outbox(contested)).filter((m) => m.purpose === "email_add").map((m) => m.code!);
    const tryVerify = async (who: typeof u) => {
      for (const code of codes) {
        const r = await call("POST", "/api/v1/auth/emails/verify", {
          token: who.session.access_token,
          body: { email: contested, code },
          ip: freshIp(),
        });
        if (r.status !== 401) return r.status;
      }
      return 401;
    };
    expect(await tryVerify(other)).toBe(200);
    expect(await tryVerify(u)).toBe(409);
    expect((await events(t, "?type=address_verified")).items).toEqual([]);
    expect((await events(other.session.access_token, "?type=address_verified")).items).toHaveLength(1);
  });

  it("the identity cron deletes events past the retention and keeps the recent ones", async () => {
    const u = await signupVerified();
    const old = new Date(Date.now() - 91 * 24 * 3600 * 1000).toISOString();
    const kept = new Date(Date.now() - 89 * 24 * 3600 * 1000).toISOString();
    const stmt = (id: string, at: string) =>
      e.DB.prepare(
        "INSERT INTO security_events (id, user_id, type, created_at) VALUES (?, ?, 'sign_in_failed', ?)",
      ).bind(id, u.session.user.id, at);
    const [oldId, keptId] = [`old-${crypto.randomUUID()}`, `kept-${crypto.randomUUID()}`];
    await e.DB.batch([stmt(oldId, old), stmt(keptId, kept)]);
    const identity = worker as unknown as { scheduled: (o: { cron: string }) => Promise<unknown> };
    await identity.scheduled({ cron: "0 * * * *" });
    const left = await e.DB.prepare("SELECT id FROM security_events WHERE id IN (?, ?)")
      .bind(oldId, keptId)
      .all<{ id: string }>();
    expect(left.results.map((r) => r.id)).toEqual([keptId]);
  });
});
