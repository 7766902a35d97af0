import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  acceptInvitation,
  call,
  callWith,
  freshEmail,
  freshIp,
  GOOD_PASSWORD,
  json,
  memberRole,
  outbox,
  pendingInvitationIds,
  problem,
  type SessionBody,
  signupVerified,
} from "../support/identity-helpers";

const e = env as unknown as IdentityEnv;

async function orgWithInvite() {
  const owner = await signupVerified();
  const t = owner.session.access_token;
  const org = await json<{ id: string }>(
    await call("POST", "/api/v1/auth/orgs", {
      token: t,
      body: { name: "Inv Org", slug: `inv-${crypto.randomUUID().slice(0, 8)}` },
    }),
  );
  const email = freshEmail("invitee");
  const created = await json<{ invitation_id: string }>(
    await call("POST", `/api/v1/auth/orgs/${org.id}/members`, { token: t, body: { email, role: "admin" } }),
  );
  return { owner, t, orgId: org.id, email, invitationId: created.invitation_id };
}

/** An organization whose only owner invited an address without an account as a plain member. */
function tokenFrom(link: string | null): string {
  return new URL(link!).searchParams.get("token")!;
}

describe("organization invitations", () => {
  it("lists pending invitations (never the token); strangers 404, members without members:manage 403", async () => {
    const { t, orgId, email, invitationId } = await orgWithInvite();
    const res = await call("GET", `/api/v1/auth/orgs/${orgId}/invitations`, { token: t });
    expect(res.status).toBe(200);
    const text = await res.text();
    const { items } = JSON.parse(text) as {
      items: { id: string; email: string; role: string; scope: string }[];
    };
    expect(items).toEqual([
      expect.objectContaining({ id: invitationId, email, role: "org_admin", scope: "org" }),
    ]);
    expect(text).not.toContain(tokenFrom((await outbox(email))[0]!.link));
    const stranger = await signupVerified();
    expect(
      (await call("GET", `/api/v1/auth/orgs/${orgId}/invitations`, { token: stranger.session.access_token }))
        .status,
    ).toBe(404);
    const member = await signupVerified();
    await call("POST", `/api/v1/auth/orgs/${orgId}/members`, {
      token: t,
      body: { email: member.email, role: "member" },
    });
    expect(
      await problem(
        await call("GET", `/api/v1/auth/orgs/${orgId}/invitations`, { token: member.session.access_token }),
      ),
    ).toMatchObject({ status: 403, code: "FORBIDDEN" });
  });

  it("INVITES_DISABLED (501) is checked after authorization: a stranger still gets 404", async () => {
    const { t, orgId } = await orgWithInvite();
    const off = { INVITES_ENABLED: "false" };
    expect(
      await problem(await callWith(off, "GET", `/api/v1/auth/orgs/${orgId}/invitations`, { token: t })),
    ).toMatchObject({
      status: 501,
      code: "INVITES_DISABLED",
    });
    const stranger = await signupVerified();
    expect(
      (
        await callWith(off, "GET", `/api/v1/auth/orgs/${orgId}/invitations`, {
          token: stranger.session.access_token,
        })
      ).status,
    ).toBe(404);
  });

  it("resend rotates the token (old link dies) and restarts the 7-day expiry; never returns the token", async () => {
    const { t, orgId, email, invitationId } = await orgWithInvite();
    const oldToken = tokenFrom((await outbox(email))[0]!.link);
    await e.DB.prepare("UPDATE invitations SET expires_at = '2020-01-01T00:00:00.000Z' WHERE id = ?")
      .bind(invitationId)
      .run();
    const res = await call("POST", `/api/v1/auth/orgs/${orgId}/invitations/${invitationId}/resend`, {
      token: t,
      ip: freshIp(),
    });
    expect(res.status).toBe(202);
    const body = await json<{ email_sent: boolean; expires_at: string }>(res);
    expect(body.email_sent).toBe(true);
    expect(Date.parse(body.expires_at) - Date.now()).toBeGreaterThan(7 * 24 * 3600 * 1000 - 60_000);
    expect(JSON.stringify(body)).not.toContain("token");
    const newToken = tokenFrom((await outbox(email))[0]!.link);
    expect(newToken).not.toBe(oldToken);
    expect(
      (
        await call("POST", "/api/v1/auth/invitations/accept", {
          body: { token: oldToken, password: GOOD_PASSWORD },
          ip: freshIp(),
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await call("POST", "/api/v1/auth/invitations/accept", {
          body: { token: newToken, password: GOOD_PASSWORD },
          ip: freshIp(),
        })
      ).status,
    ).toBe(200);
    expect(
      await problem(
        await call("POST", `/api/v1/auth/orgs/${orgId}/invitations/${invitationId}/resend`, {
          token: t,
          ip: freshIp(),
        }),
      ),
    ).toMatchObject({ status: 409, code: "INVITATION_ALREADY_ACCEPTED" });
  });

  it("resend is limited per invitee mailbox (3 per hour)", async () => {
    const { t, orgId, invitationId } = await orgWithInvite();
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      statuses.push(
        (
          await call("POST", `/api/v1/auth/orgs/${orgId}/invitations/${invitationId}/resend`, {
            token: t,
            ip: freshIp(),
          })
        ).status,
      );
    }
    expect(statuses).toEqual([202, 202, 202, 429]);
  });

  it("revoke: 204 within the organization; another organization's id revokes nothing (404)", async () => {
    const a = await orgWithInvite();
    const b = await orgWithInvite();
    expect(
      await problem(
        await call("DELETE", `/api/v1/auth/orgs/${a.orgId}/invitations/${b.invitationId}`, { token: a.t }),
      ),
    ).toMatchObject({ status: 404, code: "NOT_FOUND" });
    expect((await call("GET", `/api/v1/auth/orgs/${b.orgId}/invitations`, { token: b.t })).status).toBe(200);
    expect(
      (await call("DELETE", `/api/v1/auth/orgs/${a.orgId}/invitations/${a.invitationId}`, { token: a.t }))
        .status,
    ).toBe(204);
    const { items } = await json<{ items: unknown[] }>(
      await call("GET", `/api/v1/auth/orgs/${a.orgId}/invitations`, { token: a.t }),
    );
    expect(items).toEqual([]);
    const token = tokenFrom((await outbox(a.email))[0]!.link);
    expect(
      (
        await call("POST", "/api/v1/auth/invitations/accept", {
          body: { token, password: GOOD_PASSWORD },
          ip: freshIp(),
        })
      ).status,
    ).toBe(404);
  });
});

describe("POST /auth/invitations/accept", () => {
  it("a new account sets a password, becomes a member with the invited role and gets a session", async () => {
    const { orgId, email } = await orgWithInvite();
    const token = tokenFrom((await outbox(email))[0]!.link);
    expect(
      await problem(
        await call("POST", "/api/v1/auth/invitations/accept", { body: { token }, ip: freshIp() }),
      ),
    ).toMatchObject({ status: 400, code: "BAD_REQUEST" });
    const res = await call("POST", "/api/v1/auth/invitations/accept", {
      body: { token, password: GOOD_PASSWORD },
      ip: freshIp(),
    });
    expect(res.status).toBe(200);
    const body = await json<SessionBody & { org_id: string; role: string }>(res);
    expect(body).toMatchObject({ org_id: orgId, role: "org_admin" });
    const orgs = await json<{ items: { id: string; role: string }[] }>(
      await call("GET", "/api/v1/auth/orgs", { token: body.access_token }),
    );
    expect(orgs.items).toEqual([expect.objectContaining({ id: orgId, role: "org_admin" })]);
  });

  it("concurrent acceptances of one token: exactly one wins", async () => {
    const { email } = await orgWithInvite();
    const token = tokenFrom((await outbox(email))[0]!.link);
    const results = await Promise.all(
      Array.from({ length: 5 }, () =>
        call("POST", "/api/v1/auth/invitations/accept", {
          body: { token, password: GOOD_PASSWORD },
          ip: freshIp(),
        }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 404)).toHaveLength(4);
    const accounts = await e.DB.prepare("SELECT COUNT(*) AS n FROM email_addresses WHERE address = ?")
      .bind(email)
      .first<{ n: number }>();
    expect(accounts!.n).toBe(1);
  });

  it("an existing account is granted the membership without a new account", async () => {
    const owner = await signupVerified();
    const t = owner.session.access_token;
    const org = await json<{ id: string }>(
      await call("POST", "/api/v1/auth/orgs", {
        token: t,
        body: { name: "X", slug: `x-${crypto.randomUUID().slice(0, 8)}` },
      }),
    );
    const email = freshEmail("later");
    await call("POST", `/api/v1/auth/orgs/${org.id}/members`, { token: t, body: { email, role: "member" } });
    const token = tokenFrom((await outbox(email)).find((m) => m.purpose === "invitation")!.link);
    const invitee = await signupVerified(email);
    const res = await call("POST", "/api/v1/auth/invitations/accept", { body: { token }, ip: freshIp() });
    expect(res.status).toBe(200);
    const orgs = await json<{ items: { id: string }[] }>(
      await call("GET", "/api/v1/auth/orgs", { token: invitee.session.access_token }),
    );
    expect(orgs.items.map((o) => o.id)).toEqual([org.id]);
  });

  it("never demotes the last owner: 409 LAST_ORG_OWNER, still owner, still pending; with two owners it does and the titular passes on", async () => {
    const owner = await signupVerified();
    const t = owner.session.access_token;
    const orgId = (
      await json<{ id: string }>(
        await call("POST", "/api/v1/auth/orgs", {
          token: t,
          body: { name: "Owners", slug: `own-${crypto.randomUUID().slice(0, 8)}` },
        }),
      )
    ).id;
    // An administrator who stays sends the invitation: the pending invitations of a member who leaves end
    // with the `members:manage` that sent them (issue 31, src/identity/members/grant-endings.ts).
    const admin = await signupVerified();
    const addAdmin = await call("POST", `/api/v1/auth/orgs/${orgId}/members`, {
      token: t,
      body: { email: admin.email, role: "org_admin" },
    });
    expect(addAdmin.status).toBe(201);
    const email = freshEmail("owner-to-be");
    const { invitation_id: invitationId } = await json<{ invitation_id: string }>(
      await call("POST", `/api/v1/auth/orgs/${orgId}/members`, {
        token: admin.session.access_token,
        body: { email, role: "member" },
      }),
    );
    const invitee = await signupVerified(email);
    const grant = (who: string) =>
      call("POST", `/api/v1/auth/orgs/${orgId}/members`, { token: t, body: { email: who, role: "owner" } });
    expect((await grant(email)).status).toBe(201);
    // The creator leaves: the invitee is now the only owner and the titular.
    expect(
      (await call("DELETE", `/api/v1/auth/orgs/${orgId}/members/${owner.session.user.id}`, { token: t }))
        .status,
    ).toBe(204);
    const token = tokenFrom((await outbox(email)).find((m) => m.purpose === "invitation")!.link);
    const accept = () => acceptInvitation(token);
    const mine = invitee.session.access_token;
    const roleOf = (userId: string) => memberRole(`orgs/${orgId}`, mine, userId);

    expect(await problem(await accept())).toMatchObject({ status: 409, code: "LAST_ORG_OWNER" });
    expect(await roleOf(invitee.session.user.id)).toBe("org_owner");
    expect(await pendingInvitationIds(`orgs/${orgId}`, mine)).toEqual([invitationId]);

    const second = await signupVerified();
    expect(
      (
        await call("POST", `/api/v1/auth/orgs/${orgId}/members`, {
          token: mine,
          body: { email: second.email, role: "owner" },
        })
      ).status,
    ).toBe(201);
    expect((await accept()).status).toBe(200);
    expect(await roleOf(invitee.session.user.id)).toBe("org_member");
    const org = await e.DB.prepare("SELECT owner_user_id FROM orgs WHERE id = ?")
      .bind(orgId)
      .first<{ owner_user_id: string }>();
    expect(org!.owner_user_id).toBe(second.session.user.id);
  });
});
