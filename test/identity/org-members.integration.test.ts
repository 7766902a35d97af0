import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  call,
  callWith,
  expectForeignLikeMissing,
  freshEmail,
  json,
  outbox,
  problem,
  signupVerified,
} from "../support/identity-helpers";

const e = env as unknown as IdentityEnv;

interface Member {
  user_id: string;
  email: string;
  role: string;
  is_owner: boolean;
}

async function orgWithOwner() {
  const owner = await signupVerified();
  const org = await json<{ id: string }>(
    await call("POST", "/api/v1/auth/orgs", {
      token: owner.session.access_token,
      body: { name: "Members Org", slug: `m-${crypto.randomUUID().slice(0, 8)}` },
    }),
  );
  return { owner, orgId: org.id };
}

function add(token: string, orgId: string, email: string, role: string) {
  return call("POST", `/api/v1/auth/orgs/${orgId}/members`, { token, body: { email, role } });
}

async function memberOf(orgId: string, ownerToken: string, role: string) {
  const u = await signupVerified();
  expect((await add(ownerToken, orgId, u.email, role)).status).toBe(201);
  return u;
}

describe("GET /auth/orgs/{org_id}/members", () => {
  it("any member reads the list; a non-member gets the same 404 as a missing organization", async () => {
    const { owner, orgId } = await orgWithOwner();
    const m = await memberOf(orgId, owner.session.access_token, "member");
    const res = await call("GET", `/api/v1/auth/orgs/${orgId}/members`, { token: m.session.access_token });
    expect(res.status).toBe(200);
    const { items } = await json<{ items: Member[] }>(res);
    expect(items.map((i) => [i.email, i.role, i.is_owner])).toEqual([
      [owner.email, "org_owner", true],
      [m.email, "org_member", false],
    ]);
    const stranger = await signupVerified();
    const members = (id: string) => `/api/v1/auth/orgs/${id}/members`;
    await expectForeignLikeMissing("GET", members, orgId, stranger.session.access_token);
    expect(
      await problem(
        await call("GET", "/api/v1/auth/orgs/not-an-id/members", { token: stranger.session.access_token }),
      ),
    ).toMatchObject({ status: 400, code: "BAD_ORG" });
  });

  it("fails with 500 LOOKUP_FAILED rather than list a member without an address", async () => {
    const { owner, orgId } = await orgWithOwner();
    const m = await memberOf(orgId, owner.session.access_token, "member");
    await e.DB.prepare("UPDATE email_addresses SET is_primary = 0 WHERE user_id = ?")
      .bind(m.session.user.id)
      .run();
    expect(
      await problem(
        await call("GET", `/api/v1/auth/orgs/${orgId}/members`, { token: owner.session.access_token }),
      ),
    ).toMatchObject({ status: 500, code: "LOOKUP_FAILED" });
  });
});

describe("POST /auth/orgs/{org_id}/members", () => {
  it("grants (201), then changes the role of an existing member (200)", async () => {
    const { owner, orgId } = await orgWithOwner();
    const u = await signupVerified();
    const t = owner.session.access_token;
    const granted = await add(t, orgId, u.email, "member");
    expect(granted.status).toBe(201);
    expect(await json(granted)).toMatchObject({
      user_id: u.session.user.id,
      role: "org_member",
      is_owner: false,
    });
    const changed = await add(t, orgId, u.email, "admin");
    expect(changed.status).toBe(200);
    expect(await json(changed)).toMatchObject({ role: "org_admin" });
  });

  it("two rungs: a member without members:manage gets 403 FORBIDDEN, a stranger 404", async () => {
    const { owner, orgId } = await orgWithOwner();
    const m = await memberOf(orgId, owner.session.access_token, "member");
    const stranger = await signupVerified();
    expect(await problem(await add(m.session.access_token, orgId, freshEmail(), "member"))).toMatchObject({
      status: 403,
      code: "FORBIDDEN",
    });
    expect(
      await problem(await add(stranger.session.access_token, orgId, freshEmail(), "member")),
    ).toMatchObject({
      status: 404,
      code: "NOT_FOUND",
    });
  });

  it("refuses bad input: BAD_EMAIL, BAD_ROLE (site role or garbage), ROLE_NOT_FOUND", async () => {
    const { owner, orgId } = await orgWithOwner();
    const t = owner.session.access_token;
    expect(await problem(await add(t, orgId, "nope", "member"))).toMatchObject({
      status: 400,
      code: "BAD_EMAIL",
    });
    expect(await problem(await add(t, orgId, freshEmail(), "editor"))).toMatchObject({
      status: 400,
      code: "BAD_ROLE",
    });
    expect(await problem(await add(t, orgId, freshEmail(), "site_owner"))).toMatchObject({
      status: 400,
      code: "BAD_ROLE",
    });
    expect(await problem(await add(t, orgId, freshEmail(), "no such role!"))).toMatchObject({
      status: 400,
      code: "BAD_ROLE",
    });
    expect(await problem(await add(t, orgId, freshEmail(), "janitor"))).toMatchObject({
      status: 400,
      code: "ROLE_NOT_FOUND",
    });
  });

  it("an admin cannot grant the owner role (OWNER_ONLY) nor touch an owner (OWNER_PROTECTED)", async () => {
    const { owner, orgId } = await orgWithOwner();
    const admin = await memberOf(orgId, owner.session.access_token, "admin");
    const u = await signupVerified();
    expect(await problem(await add(admin.session.access_token, orgId, u.email, "owner"))).toMatchObject({
      status: 403,
      code: "OWNER_ONLY",
    });
    expect(await problem(await add(admin.session.access_token, orgId, owner.email, "member"))).toMatchObject({
      status: 403,
      code: "OWNER_PROTECTED",
    });
  });

  it("invites an address without an account (202, e-mailed); 404 USER_NOT_FOUND when invitations are off", async () => {
    const { owner, orgId } = await orgWithOwner();
    const email = freshEmail("invitee");
    const res = await add(owner.session.access_token, orgId, email, "member");
    expect(res.status).toBe(202);
    expect(await json(res)).toMatchObject({ email_sent: true });
    const [mail] = await outbox(email);
    expect(mail).toMatchObject({ purpose: "invitation" });
    expect(
      JSON.stringify(
        await json(
          await call("GET", `/api/v1/auth/orgs/${orgId}/members`, { token: owner.session.access_token }),
        ),
      ),
    ).not.toContain(email);
    expect(
      await problem(
        await callWith({ INVITES_ENABLED: "false" }, "POST", `/api/v1/auth/orgs/${orgId}/members`, {
          token: owner.session.access_token,
          body: { email: freshEmail(), role: "member" },
        }),
      ),
    ).toMatchObject({ status: 404, code: "USER_NOT_FOUND" });
  });
});

describe("PATCH and DELETE /auth/orgs/{org_id}/members/{user_id}", () => {
  it("demoting the last owner is 409 LAST_ORG_OWNER; with a second owner it is allowed and the titular passes on", async () => {
    const { owner, orgId } = await orgWithOwner();
    const t = owner.session.access_token;
    const me = owner.session.user.id;
    expect(
      await problem(
        await call("PATCH", `/api/v1/auth/orgs/${orgId}/members/${me}`, {
          token: t,
          body: { role: "admin" },
        }),
      ),
    ).toMatchObject({ status: 409, code: "LAST_ORG_OWNER" });
    const second = await memberOf(orgId, t, "owner");
    expect(
      (await call("PATCH", `/api/v1/auth/orgs/${orgId}/members/${me}`, { token: t, body: { role: "admin" } }))
        .status,
    ).toBe(200);
    const org = await e.DB.prepare("SELECT owner_user_id FROM orgs WHERE id = ?")
      .bind(orgId)
      .first<{ owner_user_id: string }>();
    expect(org!.owner_user_id).toBe(second.session.user.id);
  });

  it("concurrent demotions of two owners leave at least one owner", async () => {
    const { owner, orgId } = await orgWithOwner();
    const t = owner.session.access_token;
    const second = await memberOf(orgId, t, "owner");
    // Each owner demotes the other at the same time.
    const results = await Promise.all([
      call("PATCH", `/api/v1/auth/orgs/${orgId}/members/${second.session.user.id}`, {
        token: t,
        body: { role: "member" },
      }),
      call("PATCH", `/api/v1/auth/orgs/${orgId}/members/${owner.session.user.id}`, {
        token: second.session.access_token,
        body: { role: "member" },
      }),
    ]);
    expect(results.filter((r) => r.status === 200).length).toBeLessThanOrEqual(1);
    const owners = await e.DB.prepare(
      "SELECT COUNT(*) AS n FROM org_memberships WHERE org_id = ? AND role = 'org_owner'",
    )
      .bind(orgId)
      .first<{ n: number }>();
    expect(owners!.n).toBeGreaterThanOrEqual(1);
  });

  it("PATCH: NOT_MEMBER for a target outside, BAD_ID for a malformed id, stranger 404 before any 403", async () => {
    const { owner, orgId } = await orgWithOwner();
    const stranger = await signupVerified();
    expect(
      await problem(
        await call("PATCH", `/api/v1/auth/orgs/${orgId}/members/${stranger.session.user.id}`, {
          token: owner.session.access_token,
          body: { role: "member" },
        }),
      ),
    ).toMatchObject({ status: 404, code: "NOT_MEMBER" });
    expect(
      await problem(
        await call("PATCH", `/api/v1/auth/orgs/${orgId}/members/xyz`, {
          token: owner.session.access_token,
          body: { role: "member" },
        }),
      ),
    ).toMatchObject({ status: 400, code: "BAD_ID" });
    expect(
      await problem(
        await call("PATCH", `/api/v1/auth/orgs/${orgId}/members/${owner.session.user.id}`, {
          token: stranger.session.access_token,
          body: { role: "member" },
        }),
      ),
    ).toMatchObject({ status: 404, code: "NOT_FOUND" });
  });

  it("DELETE: removes a member (204); the last owner never leaves, not even by removing itself", async () => {
    const { owner, orgId } = await orgWithOwner();
    const t = owner.session.access_token;
    const m = await memberOf(orgId, t, "member");
    expect(
      (await call("DELETE", `/api/v1/auth/orgs/${orgId}/members/${m.session.user.id}`, { token: t })).status,
    ).toBe(204);
    expect(
      await problem(
        await call("DELETE", `/api/v1/auth/orgs/${orgId}/members/${owner.session.user.id}`, { token: t }),
      ),
    ).toMatchObject({ status: 409, code: "LAST_ORG_OWNER" });
    const admin = await memberOf(orgId, t, "admin");
    expect(
      await problem(
        await call("DELETE", `/api/v1/auth/orgs/${orgId}/members/${owner.session.user.id}`, {
          token: admin.session.access_token,
        }),
      ),
    ).toMatchObject({ status: 403, code: "OWNER_PROTECTED" });
    const second = await memberOf(orgId, t, "owner");
    expect(
      (await call("DELETE", `/api/v1/auth/orgs/${orgId}/members/${owner.session.user.id}`, { token: t }))
        .status,
    ).toBe(204);
    const org = await e.DB.prepare("SELECT owner_user_id FROM orgs WHERE id = ?")
      .bind(orgId)
      .first<{ owner_user_id: string }>();
    expect(org!.owner_user_id).toBe(second.session.user.id);
  });
});
