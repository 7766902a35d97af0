import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  acceptInvitation,
  call,
  callWith,
  expectForeignLikeMissing,
  freshEmail,
  freshIp,
  GOOD_PASSWORD,
  json,
  memberRole,
  outbox,
  pendingInvitationIds,
  problem,
  signupVerified,
} from "../support/identity-helpers";
import { createSiteAsOwner } from "../support/identity-sites";

const e = env as unknown as IdentityEnv;

async function setup() {
  const owner = await signupVerified();
  const t = owner.session.access_token;
  const org = await json<{ id: string }>(
    await call("POST", "/api/v1/auth/orgs", {
      token: t,
      body: { name: "S Org", slug: `so-${crypto.randomUUID().slice(0, 8)}` },
    }),
  );
  const siteId = await createSiteAsOwner(owner.session.user.id, org.id);
  return { owner, t, orgId: org.id, siteId };
}

async function addSiteMember(siteId: string, orgId: string, userId: string, role: string) {
  await e.DB.prepare(
    "INSERT INTO site_memberships (site_id, user_id, org_id, role, created_at) VALUES (?, ?, ?, ?, ?)",
  )
    .bind(siteId, userId, orgId, role, new Date().toISOString())
    .run();
}

describe("site members", () => {
  it("the org manager lists stored site members; a stranger gets the same 404 as a missing site", async () => {
    const { t, siteId, orgId } = await setup();
    const editor = await signupVerified();
    await addSiteMember(siteId, orgId, editor.session.user.id, "site_editor");
    const res = await call("GET", `/api/v1/auth/sites/${siteId}/members`, { token: t });
    expect(res.status).toBe(200);
    const { items } = await json<{ items: { email: string; role: string }[] }>(res);
    expect(items.map((i) => [i.email, i.role])).toEqual([[editor.email, "site_editor"]]);
    const stranger = await signupVerified();
    const members = (id: string) => `/api/v1/auth/sites/${id}/members`;
    await expectForeignLikeMissing("GET", members, siteId, stranger.session.access_token);
    // A site editor has access to the site but may not administer its members: opaque 404 too.
    expect(
      (await call("GET", `/api/v1/auth/sites/${siteId}/members`, { token: editor.session.access_token }))
        .status,
    ).toBe(404);
  });

  it("a site_owner (stored membership) administers members; aliases resolve; org roles are refused", async () => {
    const { siteId, orgId } = await setup();
    const siteOwner = await signupVerified();
    const author = await signupVerified();
    await addSiteMember(siteId, orgId, siteOwner.session.user.id, "site_owner");
    await addSiteMember(siteId, orgId, author.session.user.id, "site_author");
    const t = siteOwner.session.access_token;
    const patch = (userId: string, role: string) =>
      call("PATCH", `/api/v1/auth/sites/${siteId}/members/${userId}`, { token: t, body: { role } });
    expect(await json(await patch(author.session.user.id, "editor"))).toMatchObject({ role: "site_editor" });
    expect(await json(await patch(author.session.user.id, "colaborador"))).toMatchObject({
      role: "site_contributor",
    });
    expect(await problem(await patch(author.session.user.id, "org_admin"))).toMatchObject({
      status: 400,
      code: "BAD_ROLE",
    });
    expect(await problem(await patch(author.session.user.id, "admin"))).toMatchObject({
      status: 400,
      code: "BAD_ROLE",
    });
    expect(await problem(await patch(author.session.user.id, "janitor"))).toMatchObject({
      status: 400,
      code: "ROLE_NOT_FOUND",
    });
    const outsider = await signupVerified();
    expect(await problem(await patch(outsider.session.user.id, "editor"))).toMatchObject({
      status: 404,
      code: "NOT_MEMBER",
    });
    expect(await problem(await patch("nope", "editor"))).toMatchObject({ status: 400, code: "BAD_ID" });
  });

  it("the only owner cannot be demoted or removed (409 LAST_SITE_OWNER), not even by itself; with two it can", async () => {
    const { t, siteId, orgId } = await setup();
    const a = await signupVerified();
    const b = await signupVerified();
    await addSiteMember(siteId, orgId, a.session.user.id, "site_owner");
    const url = (u: string) => `/api/v1/auth/sites/${siteId}/members/${u}`;
    expect(
      await problem(await call("PATCH", url(a.session.user.id), { token: t, body: { role: "editor" } })),
    ).toMatchObject({
      status: 409,
      code: "LAST_SITE_OWNER",
    });
    expect(
      await problem(await call("DELETE", url(a.session.user.id), { token: a.session.access_token })),
    ).toMatchObject({
      status: 409,
      code: "LAST_SITE_OWNER",
    });
    await addSiteMember(siteId, orgId, b.session.user.id, "site_owner");
    // Re-assigning owner to an owner is allowed.
    expect((await call("PATCH", url(a.session.user.id), { token: t, body: { role: "owner" } })).status).toBe(
      200,
    );
    expect((await call("PATCH", url(a.session.user.id), { token: t, body: { role: "editor" } })).status).toBe(
      200,
    );
    expect((await call("DELETE", url(a.session.user.id), { token: t })).status).toBe(204);
    // Idempotent: a non-member answers the same 204.
    expect((await call("DELETE", url(a.session.user.id), { token: t })).status).toBe(204);
  });
});

describe("site invitations", () => {
  it("creates (202, e-mailed, org derived from the site), lists this site's only, revokes, resends", async () => {
    const { t, siteId, orgId } = await setup();
    const email = freshEmail("site-invitee");
    const created = await call("POST", `/api/v1/auth/sites/${siteId}/invitations`, {
      token: t,
      body: { email, role: "author" },
    });
    expect(created.status).toBe(202);
    const { invitation_id } = await json<{ invitation_id: string }>(created);
    const list = await json<{
      items: { id: string; scope: string; org_id: string; site_id: string; role: string }[];
    }>(await call("GET", `/api/v1/auth/sites/${siteId}/invitations`, { token: t }));
    expect(list.items).toEqual([
      expect.objectContaining({
        id: invitation_id,
        scope: "site",
        org_id: orgId,
        site_id: siteId,
        role: "site_author",
      }),
    ]);
    // The organization list shows both scopes.
    const orgList = await json<{ items: { id: string }[] }>(
      await call("GET", `/api/v1/auth/orgs/${orgId}/invitations`, { token: t }),
    );
    expect(orgList.items.map((i) => i.id)).toContain(invitation_id);
    expect(
      (
        await call("POST", `/api/v1/auth/sites/${siteId}/invitations/${invitation_id}/resend`, {
          token: t,
          ip: freshIp(),
        })
      ).status,
    ).toBe(202);
    // Accepting grants only a site membership.
    const token = new URL((await outbox(email))[0]!.link!).searchParams.get("token")!;
    const accepted = await call("POST", "/api/v1/auth/invitations/accept", {
      body: { token, password: GOOD_PASSWORD },
      ip: freshIp(),
    });
    expect(accepted.status).toBe(200);
    const session = await json<{ access_token: string; user: { id: string } }>(accepted);
    expect(
      (
        await json<{ items: unknown[] }>(
          await call("GET", "/api/v1/auth/orgs", { token: session.access_token }),
        )
      ).items,
    ).toEqual([]);
    const members = await json<{ items: { email: string; role: string }[] }>(
      await call("GET", `/api/v1/auth/sites/${siteId}/members`, { token: t }),
    );
    expect(members.items).toEqual([expect.objectContaining({ email, role: "site_author" })]);
  });

  it("accepting never demotes the only owner: 409 LAST_SITE_OWNER, still owner, still pending; with two owners it does", async () => {
    const { t, siteId, orgId } = await setup();
    const a = await signupVerified();
    await addSiteMember(siteId, orgId, a.session.user.id, "site_owner");
    const created = await call("POST", `/api/v1/auth/sites/${siteId}/invitations`, {
      token: t,
      body: { email: a.email, role: "editor" },
    });
    expect(created.status).toBe(202);
    const { invitation_id } = await json<{ invitation_id: string }>(created);
    const invitation = (await outbox(a.email)).find((m) => m.purpose === "invitation")!;
    const token = new URL(invitation.link!).searchParams.get("token")!;
    const accept = () => acceptInvitation(token);
    const roleOf = (userId: string) => memberRole(`sites/${siteId}`, t, userId);

    expect(await problem(await accept())).toMatchObject({ status: 409, code: "LAST_SITE_OWNER" });
    expect(await roleOf(a.session.user.id)).toBe("site_owner");
    expect(await pendingInvitationIds(`sites/${siteId}`, t)).toEqual([invitation_id]);

    const b = await signupVerified();
    await addSiteMember(siteId, orgId, b.session.user.id, "site_owner");
    expect((await accept()).status).toBe(200);
    expect(await roleOf(a.session.user.id)).toBe("site_editor");
    expect(await roleOf(b.session.user.id)).toBe("site_owner");
  });

  it("two owners accepting editor invitations at the same time leave at least one owner", async () => {
    const { t, siteId, orgId } = await setup();
    const owners = [await signupVerified(), await signupVerified()];
    const tokens: string[] = [];
    for (const owner of owners) {
      await addSiteMember(siteId, orgId, owner.session.user.id, "site_owner");
      await call("POST", `/api/v1/auth/sites/${siteId}/invitations`, {
        token: t,
        body: { email: owner.email, role: "editor" },
      });
      const invitation = (await outbox(owner.email)).find((m) => m.purpose === "invitation")!;
      tokens.push(new URL(invitation.link!).searchParams.get("token")!);
    }
    const results = await Promise.all(
      tokens.map((token) =>
        call("POST", "/api/v1/auth/invitations/accept", { body: { token }, ip: freshIp() }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    const left = await e.DB.prepare(
      "SELECT COUNT(*) AS n FROM site_memberships WHERE site_id = ? AND role = 'site_owner'",
    )
      .bind(siteId)
      .first<{ n: number }>();
    expect(left!.n).toBe(1);
  });

  it("another site's invitation id is not found; 501 INVITES_DISABLED only after authorization", async () => {
    const a = await setup();
    const b = await setup();
    const created = await json<{ invitation_id: string }>(
      await call("POST", `/api/v1/auth/sites/${b.siteId}/invitations`, {
        token: b.t,
        body: { email: freshEmail(), role: "editor" },
      }),
    );
    expect(
      (
        await call("DELETE", `/api/v1/auth/sites/${a.siteId}/invitations/${created.invitation_id}`, {
          token: a.t,
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await call("POST", `/api/v1/auth/sites/${a.siteId}/invitations/${created.invitation_id}/resend`, {
          token: a.t,
          ip: freshIp(),
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await call("DELETE", `/api/v1/auth/sites/${b.siteId}/invitations/${created.invitation_id}`, {
          token: b.t,
        })
      ).status,
    ).toBe(204);
    const off = { INVITES_ENABLED: "false" };
    expect(
      await problem(await callWith(off, "GET", `/api/v1/auth/sites/${a.siteId}/invitations`, { token: a.t })),
    ).toMatchObject({
      status: 501,
      code: "INVITES_DISABLED",
    });
    expect(
      (await callWith(off, "GET", `/api/v1/auth/sites/${a.siteId}/invitations`, { token: b.t })).status,
    ).toBe(404);
  });
});
