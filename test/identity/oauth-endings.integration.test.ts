/**
 * Issue 37, the credential rule for MCP agents (src/identity/oauth/endings.ts): a grant ends with what
 * granted it. Each test writes grants as the consent would leave them (a client, a grant, its refresh token
 * and code, in D1), performs the event through identity's API, and reads the grant back: ended, with its
 * reason, and the person's `oauth_grant.revoked` event; what the event does not concern (another person's
 * grant, another site, a share) stays live.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { agentAccessOf } from "../../src/identity/oauth/agent-access";
import { grantEndStatements } from "../../src/identity/oauth/endings";
import { deletionPending } from "../../src/identity/oauth/endings-store";
import { newId } from "../../src/lib/ids";
import {
  call,
  freshIp,
  GOOD_PASSWORD,
  json,
  latestCode,
  outbox,
  signupVerified,
  withStepUp,
  worker,
} from "../support/identity-helpers";
import { createSiteAsOwner } from "../support/identity-sites";
import { ssoOrg, ssoSettings } from "../support/sso-helpers";

const db = () => (env as unknown as { DB: D1Database }).DB;
const NEW_PASSWORD = "another-long-unusual-passphrase-77";

type Person = Awaited<ReturnType<typeof signupVerified>>;

/** A registered client, as the registration would leave it. */
async function client(): Promise<string> {
  const id = `mcp_${newId()}`;
  const now = new Date().toISOString();
  await db()
    .prepare(
      `INSERT INTO oauth_clients (id, kind, name, redirect_uris, metadata_json, created_at, updated_at)
       VALUES (?, 'registered', 'Test agent', '["http://127.0.0.1:4000/cb"]', '{}', ?, ?)`,
    )
    .bind(id, now, now)
    .run();
  return id;
}

/** A live grant of `userId` on the site with `scope`, with a refresh token and a spent code, as consent and redemption leave it. */
async function grant(userId: string, site: { id: string; orgId: string }, scope = "posts:read posts:write") {
  const id = newId();
  const clientId = await client();
  const now = new Date().toISOString();
  const later = new Date(Date.now() + 30 * 86_400_000).toISOString();
  await db().batch([
    db()
      .prepare(
        `INSERT INTO oauth_grants (id, user_id, client_id, site_id, org_id, scope, resource, created_at)
         VALUES (?, ?, ?, ?, ?, ?, 'http://localhost:8787/v1/mcp', ?)`,
      )
      .bind(id, userId, clientId, site.id, site.orgId, scope, now),
    db()
      .prepare(
        "INSERT INTO oauth_refresh_tokens (token_hash, grant_id, created_at, expires_at) VALUES (?, ?, ?, ?)",
      )
      .bind(`rt-${id}`, id, now, later),
    db()
      .prepare(
        `INSERT INTO oauth_codes (code_hash, grant_id, client_id, redirect_uri, code_challenge, resource, created_at, expires_at, used_at)
         VALUES (?, ?, ?, 'http://127.0.0.1:4000/cb', 'c', 'http://localhost:8787/v1/mcp', ?, ?, ?)`,
      )
      .bind(`code-${id}`, id, clientId, now, now, now),
  ]);
  return id;
}

interface GrantState {
  revoked_at: string | null;
  revoked_reason: string | null;
  revoked_by: string | null;
}

async function state(grantId: string): Promise<GrantState | null> {
  return db()
    .prepare("SELECT revoked_at, revoked_reason, revoked_by FROM oauth_grants WHERE id = ?")
    .bind(grantId)
    .first<GrantState>();
}

async function reasonOf(grantId: string) {
  return (await state(grantId))?.revoked_reason ?? "live";
}

/** The person's `oauth_grant.revoked` events (`GET /api/v1/auth/events` reads these rows): grant and reason. */
async function revokedEvents(person: { session: { user: { id: string } } }) {
  const { results } = await db()
    .prepare("SELECT target, method FROM security_events WHERE user_id = ? AND type = 'oauth_grant.revoked'")
    .bind(person.session.user.id)
    .all<{ target: string; method: string }>();
  return results.map((e) => `${e.target} ${e.method}`).sort();
}

async function orgOf(token: string, name = "Org") {
  const slug = `${name.toLowerCase()}-${crypto.randomUUID().slice(0, 8)}`;
  const org = await json<{ id: string }>(
    await call("POST", "/api/v1/auth/orgs", { token, body: { name, slug } }),
  );
  return { id: org.id, slug };
}

/** An owner, an organization and two sites of it. */
async function tenant() {
  const owner = await signupVerified();
  const org = await orgOf(owner.session.access_token);
  const [a, b] = await Promise.all([
    createSiteAsOwner(owner.session.user.id, org.id),
    createSiteAsOwner(owner.session.user.id, org.id),
  ]);
  return { owner, org, a: { id: a, orgId: org.id }, b: { id: b, orgId: org.id } };
}

async function addMember(t: Awaited<ReturnType<typeof tenant>>, role: string): Promise<Person> {
  const member = await signupVerified();
  const added = await call("POST", `/api/v1/auth/orgs/${t.org.id}/members`, {
    token: t.owner.session.access_token,
    body: { email: member.email, role },
  });
  expect(added.status).toBe(201);
  return member;
}

async function resetPassword(email: string) {
  const ip = freshIp();
  expect((await call("POST", "/api/v1/auth/password/reset/request", { body: { email }, ip })).status).toBe(
    202,
  );
  const code = await latestCode(email, "password_reset");
  const res = await call("POST", "/api/v1/auth/password/reset/confirm", {
    body: { email, code, new_password: NEW_PASSWORD },
    ip,
  });
  expect(res.status).toBe(204);
}

describe("an MCP agent's grant ends with the person's password", () => {
  it("a reset ends every grant of the person, with an event each; another person's grant on the same site stays", async () => {
    const t = await tenant();
    const member = await addMember(t, "org_admin");
    const [onA, onB, others] = await Promise.all([
      grant(member.session.user.id, t.a),
      grant(member.session.user.id, t.b),
      grant(t.owner.session.user.id, t.a),
    ]);
    await resetPassword(member.email);
    expect(await state(onA)).toMatchObject({
      revoked_reason: "password_reset",
      revoked_by: member.session.user.id,
    });
    expect(await reasonOf(onB)).toBe("password_reset");
    expect(await reasonOf(others)).toBe("live");
    // identity's answer to content: no longer active.
    expect((await agentAccessOf(db(), { grant_id: onA }))?.active).toBe(false);
    expect((await agentAccessOf(db(), { grant_id: others }))?.active).toBe(true);
    expect(await revokedEvents(member)).toEqual([`${onA} password_reset`, `${onB} password_reset`].sort());
  });

  it("a change ends every grant of the person (the session that changed it stays)", async () => {
    const person = await signupVerified();
    const org = await orgOf(person.session.access_token);
    const site = { id: await createSiteAsOwner(person.session.user.id, org.id), orgId: org.id };
    const g = await grant(person.session.user.id, site);
    const changed = await withStepUp(person.email, "POST", "/api/v1/auth/password/change", {
      token: person.session.access_token,
      body: { current_password: GOOD_PASSWORD, new_password: NEW_PASSWORD },
    });
    expect(changed.status).toBe(204);
    expect(await reasonOf(g)).toBe("password_changed");
    expect(await revokedEvents(person)).toEqual([`${g} password_changed`]);
  });

  it("signing out everywhere leaves the grants (listed apart, ended by a password change or reset)", async () => {
    const person = await signupVerified();
    const org = await orgOf(person.session.access_token);
    const g = await grant(person.session.user.id, { id: newId(), orgId: org.id });
    const out = await withStepUp(person.email, "DELETE", "/api/v1/auth/sessions", {
      token: person.session.access_token,
    });
    expect(out.status).toBe(204);
    expect(await reasonOf(g)).toBe("live");
  });
});

describe("an MCP agent's grant ends with the account", () => {
  it("the deletion request ends the grants in its batch; the erasure deletes them with their codes and refresh tokens", async () => {
    const owner = await signupVerified();
    const org = await orgOf(owner.session.access_token);
    const member = await signupVerified();
    expect(
      (
        await call("POST", `/api/v1/auth/orgs/${org.id}/members`, {
          token: owner.session.access_token,
          body: { email: member.email, role: "org_admin" },
        })
      ).status,
    ).toBe(201);
    const g = await grant(member.session.user.id, { id: newId(), orgId: org.id });
    const asked = await withStepUp(member.email, "DELETE", "/api/v1/auth/account", {
      token: member.session.access_token,
    });
    expect(asked.status).toBe(202);
    expect(await state(g)).toMatchObject({ revoked_reason: "account_deleted" });
    const { erase_after } = await json<{ erase_after: string }>(asked);
    await (worker as unknown as { scheduled: (o: object) => Promise<unknown> }).scheduled({
      cron: "0 * * * *",
      scheduledTime: new Date(Date.parse(erase_after) + 3600_000),
    });
    expect(await state(g)).toBeNull();
    const left = await db()
      .prepare(
        "SELECT (SELECT COUNT(*) FROM oauth_refresh_tokens WHERE grant_id = ?1) + (SELECT COUNT(*) FROM oauth_codes WHERE grant_id = ?1) AS n",
      )
      .bind(g)
      .first<{ n: number }>();
    expect(left?.n).toBe(0);
  });

  it("the request's endings hold only while the deletion is pending (a request that lost ends nothing)", async () => {
    const person = await signupVerified();
    const org = await orgOf(person.session.access_token);
    const g = await grant(person.session.user.id, { id: newId(), orgId: org.id });
    const statements = await grantEndStatements(
      db(),
      { userId: person.session.user.id },
      {
        reason: "account_deleted",
        guard: deletionPending(db(), person.session.user.id),
      },
    );
    await db().batch(statements);
    expect(await reasonOf(g)).toBe("live");
  });

  it("a grant approved between an ending's read and its batch is ended too (the catch-all), with no event of its own", async () => {
    const person = await signupVerified();
    const org = await orgOf(person.session.access_token);
    const site = { id: newId(), orgId: org.id };
    const read = await grant(person.session.user.id, site);
    const statements = await grantEndStatements(
      db(),
      { userId: person.session.user.id },
      {
        reason: "password_reset",
      },
    );
    const late = await grant(person.session.user.id, site);
    await db().batch(statements);
    expect(await reasonOf(read)).toBe("password_reset");
    expect(await reasonOf(late)).toBe("password_reset");
    expect(await revokedEvents(person)).toEqual([`${read} password_reset`]);
  });

  it("a refused deletion request (the last owner) ends nothing", async () => {
    const owner = await signupVerified();
    const org = await orgOf(owner.session.access_token);
    const g = await grant(owner.session.user.id, { id: newId(), orgId: org.id });
    const asked = await withStepUp(owner.email, "DELETE", "/api/v1/auth/account", {
      token: owner.session.access_token,
    });
    expect(asked.status).toBe(409);
    expect(await reasonOf(g)).toBe("live");
  });
});

describe("an MCP agent's grant ends with the membership that allowed it", () => {
  it("removal from the organization ends the person's grants there, not elsewhere", async () => {
    const t = await tenant();
    const member = await addMember(t, "org_admin");
    const elsewhere = await orgOf(member.session.access_token, "Own");
    const [onA, onB, own] = await Promise.all([
      grant(member.session.user.id, t.a),
      grant(member.session.user.id, t.b),
      grant(member.session.user.id, { id: newId(), orgId: elsewhere.id }),
    ]);
    const removed = await call("DELETE", `/api/v1/auth/orgs/${t.org.id}/members/${member.session.user.id}`, {
      token: t.owner.session.access_token,
    });
    expect(removed.status).toBe(204);
    // Ended before the route answered; a re-added member does not bring them back.
    expect(await reasonOf(onA)).toBe("membership_ended");
    expect(await reasonOf(onB)).toBe("membership_ended");
    expect(await reasonOf(own)).toBe("live");
    await addMemberAgain(t, member, "org_admin");
    expect(await reasonOf(onA)).toBe("membership_ended");
    expect(await revokedEvents(member)).toEqual(
      [`${onA} membership_ended`, `${onB} membership_ended`].sort(),
    );
  });

  it("a demotion ends the grants whose scopes the new role does not cover in full, and keeps the others", async () => {
    const t = await tenant();
    const member = await addMember(t, "org_admin");
    const [writes, reads] = await Promise.all([
      grant(member.session.user.id, t.a, "posts:read posts:write"),
      grant(member.session.user.id, t.a, "posts:read media:read"),
    ]);
    const demoted = await call("PATCH", `/api/v1/auth/orgs/${t.org.id}/members/${member.session.user.id}`, {
      token: t.owner.session.access_token,
      body: { role: "org_member" },
    });
    expect(demoted.status).toBe(200);
    expect(await reasonOf(writes)).toBe("role_changed");
    expect(await reasonOf(reads)).toBe("live");
    // Promoted back: the ended grant stays ended (never widened again in place).
    await addMemberAgain(t, member, "org_admin");
    expect(await reasonOf(writes)).toBe("role_changed");
  });

  it("a promotion ends nothing", async () => {
    const t = await tenant();
    const member = await addMember(t, "org_member");
    const g = await grant(member.session.user.id, t.a, "posts:read");
    await addMemberAgain(t, member, "org_admin");
    expect(await reasonOf(g)).toBe("live");
  });

  it("removal from a site's membership ends the grant on that site", async () => {
    const t = await tenant();
    const member = await signupVerified();
    const invited = await call("POST", `/api/v1/auth/sites/${t.a.id}/invitations`, {
      token: t.owner.session.access_token,
      body: { email: member.email, role: "editor" },
    });
    expect(invited.status).toBe(202);
    const link = (await outbox(member.email)).find((m) => m.purpose === "invitation")!.link!;
    const accepted = await call("POST", "/api/v1/auth/invitations/accept", {
      body: { token: new URL(link).searchParams.get("token") },
      ip: freshIp(),
    });
    expect(accepted.status).toBe(200);
    const g = await grant(member.session.user.id, t.a, "posts:read posts:write");
    const removed = await call("DELETE", `/api/v1/auth/sites/${t.a.id}/members/${member.session.user.id}`, {
      token: t.owner.session.access_token,
    });
    expect(removed.status).toBe(204);
    expect(await reasonOf(g)).toBe("membership_ended");
  });
});

async function addMemberAgain(t: Awaited<ReturnType<typeof tenant>>, member: Person, role: string) {
  const res = await call("POST", `/api/v1/auth/orgs/${t.org.id}/members`, {
    token: t.owner.session.access_token,
    body: { email: member.email, role },
  });
  expect([200, 201]).toContain(res.status);
}

describe("an MCP agent's grant ends with the site's owner", () => {
  async function offerAndDecide(mode: "transfer" | "share", decision: "accept" | "reject") {
    const t = await tenant();
    const buyer = await signupVerified();
    const to = await orgOf(buyer.session.access_token, "Buyer");
    const member = await addMember(t, "org_admin");
    const [moved, stays, buyers] = await Promise.all([
      grant(member.session.user.id, t.a),
      grant(member.session.user.id, t.b),
      grant(t.owner.session.user.id, t.a),
    ]);
    const offered = await call("POST", `/api/v1/auth/orgs/${t.org.id}/transfers`, {
      token: t.owner.session.access_token,
      body: {
        site_id: t.a.id,
        to_org_slug: to.slug,
        mode,
        ...(mode === "share" ? { share_role: "editor" } : {}),
      },
    });
    expect(offered.status).toBe(200);
    const { id } = await json<{ id: string }>(offered);
    const decided = await call("POST", `/api/v1/auth/orgs/${to.id}/transfers/${id}/${decision}`, {
      token: buyer.session.access_token,
    });
    expect(decided.status).toBe(decision === "accept" ? 200 : 204);
    return { moved, stays, buyers, member, buyer };
  }

  it("an accepted transfer ends every grant on the moved site, whoever's, and no other", async () => {
    const r = await offerAndDecide("transfer", "accept");
    expect(await state(r.moved)).toMatchObject({
      revoked_reason: "site_transferred",
      revoked_by: r.buyer.session.user.id,
    });
    expect(await reasonOf(r.buyers)).toBe("site_transferred");
    expect(await reasonOf(r.stays)).toBe("live");
    expect(await revokedEvents(r.member)).toEqual([`${r.moved} site_transferred`]);
  });

  it("a share or a rejection ends none", async () => {
    const shared = await offerAndDecide("share", "accept");
    expect(await reasonOf(shared.moved)).toBe("live");
    const rejected = await offerAndDecide("transfer", "reject");
    expect(await reasonOf(rejected.moved)).toBe("live");
  });
});

describe("an MCP agent's grant ends when its organization enforces SSO", () => {
  it("turning enforcement on ends the organization's grants; a grant elsewhere stays; saving it again ends nothing new", async () => {
    const org = await ssoOrg();
    const owner = org.owner;
    const other = await orgOf(owner.session.access_token, "Other");
    const [inside, outside] = await Promise.all([
      grant(owner.session.user.id, { id: newId(), orgId: org.orgId }),
      grant(owner.session.user.id, { id: newId(), orgId: other.id }),
    ]);
    const path = `/api/v1/auth/orgs/${org.orgId}/sso`;
    const enforce = () =>
      withStepUp(owner.email, "PUT", path, {
        token: owner.session.access_token,
        body: ssoSettings(org.domain, { enforced: true }),
      });
    expect((await enforce()).status).toBe(200);
    expect(await state(inside)).toMatchObject({
      revoked_reason: "sso_enforced",
      revoked_by: owner.session.user.id,
    });
    expect(await reasonOf(outside)).toBe("live");
    // A grant approved later under enforcement is not ended by saving the same settings again.
    const later = await grant(owner.session.user.id, { id: newId(), orgId: org.orgId });
    expect((await enforce()).status).toBe(200);
    expect(await reasonOf(later)).toBe("live");
  });

  it("the undo of turning enforcement off puts it back and ends the grants approved meanwhile", async () => {
    const org = await ssoOrg({ enforced: true });
    const owner = org.owner;
    const path = `/api/v1/auth/orgs/${org.orgId}/sso`;
    const off = await withStepUp(owner.email, "PUT", path, {
      token: owner.session.access_token,
      body: ssoSettings(org.domain, { enforced: false }),
    });
    expect(off.status).toBe(200);
    const meanwhile = await grant(owner.session.user.id, { id: newId(), orgId: org.orgId });
    const notice = (await outbox(owner.email)).find((m) => m.purpose === "sso_notice" && m.link);
    const token = new URL(notice!.link!).searchParams.get("token")!;
    const undone = await call("POST", `/api/v1/auth/orgs/${org.orgId}/sso/undo`, { body: { token } });
    expect(undone.status).toBe(200);
    expect(await reasonOf(meanwhile)).toBe("sso_enforced");
    // The link works once: a second use ends nothing more (and a grant made since stays).
    const after = await grant(owner.session.user.id, { id: newId(), orgId: org.orgId });
    expect((await call("POST", `/api/v1/auth/orgs/${org.orgId}/sso/undo`, { body: { token } })).status).toBe(
      404,
    );
    expect(await reasonOf(after)).toBe("live");
  });
});
