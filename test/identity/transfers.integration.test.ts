import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { SitesRpc } from "../../src/lib/rpc";
import { call, json, problem, signupVerified } from "../support/identity-helpers";

const e = env as unknown as IdentityEnv;
const sites = e.SITES as unknown as SitesRpc;

async function orgOf(token: string, name: string) {
  const slug = `${name.toLowerCase()}-${crypto.randomUUID().slice(0, 8)}`;
  const org = await json<{ id: string }>(
    await call("POST", "/api/v1/auth/orgs", { token, body: { name, slug } }),
  );
  return { id: org.id, slug };
}

async function createSite(userId: string, orgId: string): Promise<string> {
  const res = await e.SITES.fetch("http://sites/api/v1/sites", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-user-id": userId,
      "x-session-kind": "staff",
      "x-org-memberships": JSON.stringify([
        { org_id: orgId, role: "org_owner", permissions: ["members:manage"] },
      ]),
      "x-site-memberships": "[]",
    },
    body: JSON.stringify({
      org_id: orgId,
      name: "Site",
      slug: `t-${crypto.randomUUID().slice(0, 8)}`,
      default_language: "en",
    }),
  });
  if (res.status !== 201) throw new Error(`site ${res.status} ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

async function setup() {
  const a = await signupVerified();
  const b = await signupVerified();
  const from = await orgOf(a.session.access_token, "Origin");
  const to = await orgOf(b.session.access_token, "Destination");
  const siteId = await createSite(a.session.user.id, from.id);
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
    const otherSite = await createSite(s.b.session.user.id, s.to.id);
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
});
