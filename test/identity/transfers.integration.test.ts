import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { SitesRpc } from "../../src/lib/rpc";
import {
  call,
  freshEmail,
  freshIp,
  GOOD_PASSWORD,
  json,
  outbox,
  problem,
  signupVerified,
} from "../support/identity-helpers";
import { createSiteAsOwner } from "../support/identity-sites";

const e = env as unknown as IdentityEnv;
const sites = e.SITES as unknown as SitesRpc;

async function orgOf(token: string, name: string) {
  const slug = `${name.toLowerCase()}-${crypto.randomUUID().slice(0, 8)}`;
  const org = await json<{ id: string }>(
    await call("POST", "/api/v1/auth/orgs", { token, body: { name, slug } }),
  );
  return { id: org.id, slug };
}

async function setup() {
  const a = await signupVerified();
  const b = await signupVerified();
  const from = await orgOf(a.session.access_token, "Origin");
  const to = await orgOf(b.session.access_token, "Destination");
  const siteId = await createSiteAsOwner(a.session.user.id, from.id);
  return { a, b, from, to, siteId, ta: a.session.access_token, tb: b.session.access_token };
}

interface Transfer {
  id: string;
  status: string;
  from_org: { id: string; name: string };
  to_org: { id: string; name: string };
}

function offer(token: string, orgId: string, body: unknown) {
  return call("POST", `/api/v1/auth/orgs/${orgId}/transfers`, { token, body });
}

/** The origin invites an address to the site (as its owner unless told); the id and the e-mailed token. */
async function inviteToSite(token: string, siteId: string, role = "owner") {
  const email = freshEmail("site-invitee");
  const res = await call("POST", `/api/v1/auth/sites/${siteId}/invitations`, {
    token,
    body: { email, role },
  });
  expect(res.status).toBe(202);
  const { invitation_id } = await json<{ invitation_id: string }>(res);
  const link = (await outbox(email)).find((m) => m.purpose === "invitation")!.link!;
  return { id: invitation_id, email, token: new URL(link).searchParams.get("token")! };
}

async function pendingIds(token: string, path: string) {
  const res = await call("GET", path, { token });
  expect(res.status).toBe(200);
  return (await json<{ items: { id: string }[] }>(res)).items.map((i) => i.id);
}

function acceptInvitation(token: string) {
  return call("POST", "/api/v1/auth/invitations/accept", {
    body: { token, password: GOOD_PASSWORD },
    ip: freshIp(),
  });
}

async function acceptedTransfer(s: Awaited<ReturnType<typeof setup>>) {
  const t = await json<Transfer>(
    await offer(s.ta, s.from.id, { site_id: s.siteId, to_org_slug: s.to.slug, mode: "transfer" }),
  );
  const accepted = await call("POST", `/api/v1/auth/orgs/${s.to.id}/transfers/${t.id}/accept`, {
    token: s.tb,
  });
  expect(accepted.status).toBe(200);
  return t;
}

describe("transfers", () => {
  it("offer (200 pending) -> destination sees it with both names -> accept moves the site", async () => {
    const s = await setup();
    const res = await offer(s.ta, s.from.id, { site_id: s.siteId, to_org_slug: s.to.slug, mode: "transfer" });
    expect(res.status).toBe(200);
    const t = await json<Transfer>(res);
    expect(t).toMatchObject({
      status: "pending",
      from_org: { name: "Origin" },
      to_org: { name: "Destination" },
    });

    const pending = await json<{ orgs: { org_id: string; count: number }[]; total: number }>(
      await call("GET", "/api/v1/auth/transfers/pending", { token: s.tb }),
    );
    expect(pending).toEqual({ orgs: [{ org_id: s.to.id, name: "Destination", count: 1 }], total: 1 });
    const list = await json<{ incoming: Transfer[]; outgoing: Transfer[] }>(
      await call("GET", `/api/v1/auth/orgs/${s.to.id}/transfers`, { token: s.tb }),
    );
    expect(list.incoming.map((x) => x.id)).toEqual([t.id]);
    expect(list.outgoing).toEqual([]);

    // The origin cannot accept its own offer.
    expect(
      await problem(
        await call("POST", `/api/v1/auth/orgs/${s.from.id}/transfers/${t.id}/accept`, { token: s.ta }),
      ),
    ).toMatchObject({ status: 403, code: "FORBIDDEN" });
    const accepted = await call("POST", `/api/v1/auth/orgs/${s.to.id}/transfers/${t.id}/accept`, {
      token: s.tb,
    });
    expect(accepted.status).toBe(200);
    expect((await sites.siteOrg(s.siteId))?.org_id).toBe(s.to.id);
    expect(
      await problem(
        await call("POST", `/api/v1/auth/orgs/${s.to.id}/transfers/${t.id}/accept`, { token: s.tb }),
      ),
    ).toMatchObject({ status: 409, code: "NOT_PENDING" });
    expect(
      (await json<{ total: number }>(await call("GET", "/api/v1/auth/transfers/pending", { token: s.tb })))
        .total,
    ).toBe(0);
  });

  it("refuses: SAME_ORG, MODE_INVALID, TARGET_NOT_FOUND, NOT_OWNER, bad JSON/site_id, and a second pending offer", async () => {
    const s = await setup();
    const bad = (body: unknown) => offer(s.ta, s.from.id, body);
    expect(
      await problem(await bad({ site_id: s.siteId, to_org_slug: s.from.slug, mode: "transfer" })),
    ).toMatchObject({
      status: 400,
      code: "SAME_ORG",
    });
    expect(
      await problem(await bad({ site_id: s.siteId, to_org_slug: s.to.slug, mode: "gift" })),
    ).toMatchObject({
      status: 400,
      code: "MODE_INVALID",
    });
    expect(
      await problem(await bad({ site_id: s.siteId, to_org_slug: "no-such-org-xyz", mode: "transfer" })),
    ).toMatchObject({
      status: 404,
      code: "TARGET_NOT_FOUND",
    });
    expect(
      await problem(await bad({ site_id: "nope", to_org_slug: s.to.slug, mode: "transfer" })),
    ).toMatchObject({
      status: 400,
      code: "BAD_REQUEST",
    });
    const otherSite = await createSiteAsOwner(s.b.session.user.id, s.to.id);
    const other = await orgOf(s.ta, "Third");
    expect(
      await problem(await bad({ site_id: otherSite, to_org_slug: other.slug, mode: "transfer" })),
    ).toMatchObject({
      status: 403,
      code: "NOT_OWNER",
    });
    expect(
      (await call("POST", `/api/v1/auth/orgs/${s.from.id}/transfers`, { token: s.ta, rawBody: "{nope" }))
        .status,
    ).toBe(400);
    expect((await bad({ site_id: s.siteId, to_org_slug: s.to.slug, mode: "transfer" })).status).toBe(200);
    expect(
      await problem(await bad({ site_id: s.siteId, to_org_slug: s.to.slug, mode: "transfer" })),
    ).toMatchObject({
      status: 409,
      code: "TRANSFER_EXISTS",
    });
    const stranger = await signupVerified();
    expect(
      await problem(
        await offer(stranger.session.access_token, s.from.id, {
          site_id: s.siteId,
          to_org_slug: s.to.slug,
          mode: "transfer",
        }),
      ),
    ).toMatchObject({ status: 404, code: "NOT_FOUND" });
  });

  it("reject keeps the site; cancel is the origin's; decided transfers answer 409 NOT_PENDING", async () => {
    const s = await setup();
    const t1 = await json<Transfer>(
      await offer(s.ta, s.from.id, { site_id: s.siteId, to_org_slug: s.to.slug, mode: "transfer" }),
    );
    expect(
      (await call("POST", `/api/v1/auth/orgs/${s.to.id}/transfers/${t1.id}/reject`, { token: s.tb })).status,
    ).toBe(204);
    expect((await sites.siteOrg(s.siteId))?.org_id).toBe(s.from.id);
    expect(
      (await call("POST", `/api/v1/auth/orgs/${s.from.id}/transfers/${t1.id}/cancel`, { token: s.ta }))
        .status,
    ).toBe(409);
    const t2 = await json<Transfer>(
      await offer(s.ta, s.from.id, { site_id: s.siteId, to_org_slug: s.to.slug, mode: "transfer" }),
    );
    expect(
      (await call("POST", `/api/v1/auth/orgs/${s.to.id}/transfers/${t2.id}/cancel`, { token: s.tb })).status,
    ).toBe(403);
    expect(
      (await call("POST", `/api/v1/auth/orgs/${s.from.id}/transfers/${t2.id}/cancel`, { token: s.ta }))
        .status,
    ).toBe(204);
    expect(
      await problem(
        await call("POST", `/api/v1/auth/orgs/${s.to.id}/transfers/${t2.id}/accept`, { token: s.tb }),
      ),
    ).toMatchObject({ status: 409, code: "NOT_PENDING" });
    expect(
      await problem(
        await call("POST", `/api/v1/auth/orgs/${s.to.id}/transfers/01ARZ3NDEKTSV4RRFFQ69G5FAV/accept`, {
          token: s.tb,
        }),
      ),
    ).toMatchObject({ status: 404, code: "TRANSFER_NOT_FOUND" });
  });

  it("an expired transfer cannot be accepted and no longer blocks a new offer", async () => {
    const s = await setup();
    const t = await json<Transfer>(
      await offer(s.ta, s.from.id, { site_id: s.siteId, to_org_slug: s.to.slug, mode: "transfer" }),
    );
    await e.DB.prepare("UPDATE transfers SET expires_at = '2020-01-01T00:00:00.000Z' WHERE id = ?")
      .bind(t.id)
      .run();
    expect(
      await problem(
        await call("POST", `/api/v1/auth/orgs/${s.to.id}/transfers/${t.id}/accept`, { token: s.tb }),
      ),
    ).toMatchObject({ status: 409, code: "NOT_PENDING" });
    expect(
      (await offer(s.ta, s.from.id, { site_id: s.siteId, to_org_slug: s.to.slug, mode: "transfer" })).status,
    ).toBe(200);
  });

  it("share: needs share_role, and once accepted shows as granted and received", async () => {
    const s = await setup();
    expect(
      await problem(
        await offer(s.ta, s.from.id, { site_id: s.siteId, to_org_slug: s.to.slug, mode: "share" }),
      ),
    ).toMatchObject({ status: 400, code: "BAD_REQUEST" });
    const t = await json<Transfer>(
      await offer(s.ta, s.from.id, {
        site_id: s.siteId,
        to_org_slug: s.to.slug,
        mode: "share",
        share_role: "editor",
      }),
    );
    expect(
      (await call("POST", `/api/v1/auth/orgs/${s.to.id}/transfers/${t.id}/accept`, { token: s.tb })).status,
    ).toBe(200);
    const origin = await json<{ shares_granted: Transfer[] }>(
      await call("GET", `/api/v1/auth/orgs/${s.from.id}/transfers`, { token: s.ta }),
    );
    const dest = await json<{ shares_received: Transfer[] }>(
      await call("GET", `/api/v1/auth/orgs/${s.to.id}/transfers`, { token: s.tb }),
    );
    expect(origin.shares_granted.map((x) => x.id)).toEqual([t.id]);
    expect(dest.shares_received.map((x) => x.id)).toEqual([t.id]);
    expect((await sites.siteOrg(s.siteId))?.org_id).toBe(s.from.id);
  });

  it("concurrent accepts: exactly one wins", async () => {
    const s = await setup();
    const t = await json<Transfer>(
      await offer(s.ta, s.from.id, { site_id: s.siteId, to_org_slug: s.to.slug, mode: "transfer" }),
    );
    const results = await Promise.all(
      Array.from({ length: 5 }, () =>
        call("POST", `/api/v1/auth/orgs/${s.to.id}/transfers/${t.id}/accept`, { token: s.tb }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(4);
  });

  it("accepting a transfer revokes the site's pending invitations: the origin no longer lists, resends or revokes them, and their links fail like a revoked one", async () => {
    const s = await setup();
    const siteInvite = await inviteToSite(s.ta, s.siteId);
    const expired = await inviteToSite(s.ta, s.siteId, "editor");
    await e.DB.prepare("UPDATE invitations SET expires_at = '2020-01-01T00:00:00.000Z' WHERE id = ?")
      .bind(expired.id)
      .run();
    const orgInvite = await json<{ invitation_id: string }>(
      await call("POST", `/api/v1/auth/orgs/${s.from.id}/members`, {
        token: s.ta,
        body: { email: freshEmail("org-invitee"), role: "member" },
      }),
    );
    await acceptedTransfer(s);

    // The organization's own invitations are not the site's: they stay.
    expect(await pendingIds(s.ta, `/api/v1/auth/orgs/${s.from.id}/invitations`)).toEqual([
      orgInvite.invitation_id,
    ]);
    for (const id of [siteInvite.id, expired.id]) {
      expect(
        await problem(
          await call("POST", `/api/v1/auth/orgs/${s.from.id}/invitations/${id}/resend`, {
            token: s.ta,
            ip: freshIp(),
          }),
        ),
      ).toMatchObject({ status: 404, code: "NOT_FOUND" });
      expect(
        await problem(
          await call("DELETE", `/api/v1/auth/orgs/${s.from.id}/invitations/${id}`, { token: s.ta }),
        ),
      ).toMatchObject({ status: 404, code: "NOT_FOUND" });
    }
    expect(await problem(await acceptInvitation(siteInvite.token))).toMatchObject({
      status: 404,
      code: "NOT_FOUND",
    });
    // The origin has no say over the site any more; the destination sees no inherited invitation.
    expect((await call("GET", `/api/v1/auth/sites/${s.siteId}/invitations`, { token: s.ta })).status).toBe(
      404,
    );
    expect(await pendingIds(s.tb, `/api/v1/auth/sites/${s.siteId}/invitations`)).toEqual([]);
    expect(await pendingIds(s.tb, `/api/v1/auth/sites/${s.siteId}/members`)).toEqual([]);
  });

  it("an origin's site invitation that escaped the revocation does not bind once the site moved", async () => {
    const s = await setup();
    await acceptedTransfer(s);
    // As if issued by the origin while the acceptance was being applied.
    const token = `tok-${crypto.randomUUID()}`;
    const hash = [...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token)))]
      .map((b) => b.toString(16).padStart(2, "0"))
      .join("");
    await e.DB.prepare(
      `INSERT INTO invitations (id, org_id, site_id, scope, email, role, token_hash, invited_by, created_at, expires_at)
       VALUES (?, ?, ?, 'site', ?, 'site_owner', ?, ?, ?, ?)`,
    )
      .bind(
        "01JAAAAAAAAAAAAAAAAAAAAAAA",
        s.from.id,
        s.siteId,
        freshEmail("late"),
        hash,
        s.a.session.user.id,
        new Date().toISOString(),
        new Date(Date.now() + 86_400_000).toISOString(),
      )
      .run();
    expect(await problem(await acceptInvitation(token))).toMatchObject({ status: 404, code: "NOT_FOUND" });
    expect(await pendingIds(s.tb, `/api/v1/auth/sites/${s.siteId}/members`)).toEqual([]);
  });

  it("a share leaves the site's invitations with the origin, which still owns the site", async () => {
    const s = await setup();
    const invite = await inviteToSite(s.ta, s.siteId, "editor");
    const t = await json<Transfer>(
      await offer(s.ta, s.from.id, {
        site_id: s.siteId,
        to_org_slug: s.to.slug,
        mode: "share",
        share_role: "editor",
      }),
    );
    expect(
      (await call("POST", `/api/v1/auth/orgs/${s.to.id}/transfers/${t.id}/accept`, { token: s.tb })).status,
    ).toBe(200);
    expect(await pendingIds(s.ta, `/api/v1/auth/orgs/${s.from.id}/invitations`)).toEqual([invite.id]);
    expect((await acceptInvitation(invite.token)).status).toBe(200);
  });

  it("an acceptance the site registry refuses stays pending and leaves the site's invitations pending", async () => {
    const s = await setup();
    const invite = await inviteToSite(s.ta, s.siteId, "editor");
    const t = await json<Transfer>(
      await offer(s.ta, s.from.id, { site_id: s.siteId, to_org_slug: s.to.slug, mode: "transfer" }),
    );
    await env.TEST_SITES_DB.prepare("UPDATE sites SET status = 'archived' WHERE id = ?").bind(s.siteId).run();
    expect(
      await problem(
        await call("POST", `/api/v1/auth/orgs/${s.to.id}/transfers/${t.id}/accept`, { token: s.tb }),
      ),
    ).toMatchObject({ status: 500, code: "TRANSFER_FAILED" });
    await env.TEST_SITES_DB.prepare("UPDATE sites SET status = 'active' WHERE id = ?").bind(s.siteId).run();
    expect(await pendingIds(s.ta, `/api/v1/auth/sites/${s.siteId}/invitations`)).toEqual([invite.id]);
    const list = await json<{ incoming: Transfer[] }>(
      await call("GET", `/api/v1/auth/orgs/${s.to.id}/transfers`, { token: s.tb }),
    );
    expect(list.incoming.map((x) => x.id)).toEqual([t.id]);
  });
  it("accepting a transfer ends the site memberships of people outside the destination in the same step; a refused acceptance puts them back", async () => {
    const s = await setup();
    const outsider = await inviteToSite(s.ta, s.siteId, "owner");
    expect((await acceptInvitation(outsider.token)).status).toBe(200);
    // The destination's own member, also a member of the site, keeps it.
    await e.DB.prepare(
      "INSERT INTO site_memberships (site_id, user_id, org_id, role, created_at) VALUES (?, ?, ?, 'site_editor', ?)",
    )
      .bind(s.siteId, s.b.session.user.id, s.from.id, new Date().toISOString())
      .run();
    const members = async () =>
      (
        await e.DB.prepare("SELECT user_id FROM site_memberships WHERE site_id = ? ORDER BY user_id")
          .bind(s.siteId)
          .all<{ user_id: string }>()
      ).results.map((r) => r.user_id);
    const before = await members();
    expect(before).toHaveLength(2);
    const t = await json<Transfer & { will_end: unknown }>(
      await offer(s.ta, s.from.id, { site_id: s.siteId, to_org_slug: s.to.slug, mode: "transfer" }),
    );
    expect(t.will_end).toEqual({ site_members: 1, pending_invitations: 0, api_keys: 0, webhooks: 0 });

    // Refused by the registry: nothing ends.
    await env.TEST_SITES_DB.prepare("UPDATE sites SET status = 'archived' WHERE id = ?").bind(s.siteId).run();
    const refused = await call("POST", `/api/v1/auth/orgs/${s.to.id}/transfers/${t.id}/accept`, {
      token: s.tb,
    });
    expect(refused.status).toBe(500);
    expect(await members()).toEqual(before);
    await env.TEST_SITES_DB.prepare("UPDATE sites SET status = 'active' WHERE id = ?").bind(s.siteId).run();

    const accepted = await call("POST", `/api/v1/auth/orgs/${s.to.id}/transfers/${t.id}/accept`, {
      token: s.tb,
    });
    expect(accepted.status).toBe(200);
    expect(await members()).toEqual([s.b.session.user.id]);
  });

  it("a share ends no site membership and says so (will_end null)", async () => {
    const s = await setup();
    const member = await inviteToSite(s.ta, s.siteId, "editor");
    expect((await acceptInvitation(member.token)).status).toBe(200);
    const t = await json<Transfer & { will_end: unknown }>(
      await offer(s.ta, s.from.id, {
        site_id: s.siteId,
        to_org_slug: s.to.slug,
        mode: "share",
        share_role: "editor",
      }),
    );
    expect(t.will_end).toBeNull();
    expect(
      (await call("POST", `/api/v1/auth/orgs/${s.to.id}/transfers/${t.id}/accept`, { token: s.tb })).status,
    ).toBe(200);
    const { results } = await e.DB.prepare("SELECT user_id FROM site_memberships WHERE site_id = ?")
      .bind(s.siteId)
      .all();
    expect(results).toHaveLength(1);
  });
});
