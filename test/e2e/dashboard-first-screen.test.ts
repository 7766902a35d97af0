/**
 * Issue 23 item 1, through the gateway as a dashboard calls it: `GET /api/v1/auth/me` (the account, its
 * organizations with names and roles, its site memberships) and `GET /api/v1/sites` (the caller's sites
 * from the edge memberships identity hands the gateway, each with its role and permissions), with the
 * list's filters and tenant walls on real accounts.
 */
import { describe, expect, it } from "vitest";
import {
  call,
  createOrg,
  createSite,
  joinSiteByInvitation,
  uniqueEmail,
  verifiedUser,
} from "../support/platform";
import { ALL, inModelOrder, MANAGE } from "../support/site-permission-table";

interface Me {
  id: string;
  email: string | null;
  created_at: string;
  factors: string[];
  organizations: { id: string; name: string; slug: string; role: string; owner: boolean }[];
  site_memberships: { site_id: string; org_id: string | null; role: string; owner: boolean }[];
  organizations_truncated: boolean;
  site_memberships_truncated: boolean;
}
interface Listed {
  id: string;
  org_id: string;
  role: string;
  permissions: string[];
  status: string;
}
type Page = { items: Listed[]; next_cursor: string | null };

describe("GET /api/v1/auth/me", () => {
  it("the account, its organizations with names and roles, and its site memberships", async () => {
    const email = uniqueEmail("me");
    const owner = await verifiedUser(email);
    const org = await createOrg(owner.access_token, "Acme Studio");
    const site = await createSite(owner.access_token, org.id);
    const me = await call<Me>("GET", "/api/v1/auth/me", { token: owner.access_token });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      id: owner.user.id,
      email,
      factors: ["password"],
      organizations: [{ id: org.id, name: "Acme Studio", slug: org.slug, role: "org_owner", owner: true }],
      site_memberships: [],
      organizations_truncated: false,
      site_memberships_truncated: false,
    });
    expect(Date.parse(me.body.created_at)).not.toBeNaN();

    const editor = await joinSiteByInvitation(owner.access_token, site.id, "site_editor");
    const theirs = await call<Me>("GET", "/api/v1/auth/me", { token: editor.session.access_token });
    expect(theirs.body).toMatchObject({
      id: editor.session.user.id,
      email: editor.email,
      organizations: [],
      site_memberships: [{ site_id: site.id, org_id: org.id, role: "site_editor", owner: false }],
    });
  });

  it("401 without a Bearer, with a bad one, and after the session is revoked", async () => {
    expect((await call("GET", "/api/v1/auth/me")).status).toBe(401);
    expect((await call("GET", "/api/v1/auth/me", { token: "not-a-token" })).status).toBe(401);
    const user = await verifiedUser();
    const out = await call("DELETE", `/api/v1/auth/sessions/${user.session_id}`, {
      token: user.access_token,
    });
    expect([200, 204]).toContain(out.status);
    expect((await call("GET", "/api/v1/auth/me", { token: user.access_token })).status).toBe(401);
  });
});

describe("GET /api/v1/sites through the gateway", () => {
  it("an owner's organization sites and a site member's one site, each with role and permissions; walls hold", async () => {
    const owner = await verifiedUser();
    const org = await createOrg(owner.access_token, "Walls Org");
    const a = await createSite(owner.access_token, org.id);
    const b = await createSite(owner.access_token, org.id);
    const stranger = await verifiedUser();
    const strangerOrg = await createOrg(stranger.access_token);
    const theirs = await createSite(stranger.access_token, strangerOrg.id);

    const mine = await call<Page>("GET", "/api/v1/sites", { token: owner.access_token });
    expect(mine.status).toBe(200);
    expect(mine.body.items.map((s) => s.id).sort()).toEqual([a.id, b.id].sort());
    for (const item of mine.body.items) expect(item).toMatchObject({ role: "site_owner", permissions: ALL });

    const editor = await joinSiteByInvitation(owner.access_token, a.id, "site_editor");
    const edited = await call<Page>("GET", "/api/v1/sites", { token: editor.session.access_token });
    expect(edited.body.items.map((s) => [s.id, s.role])).toEqual([[a.id, "site_editor"]]);
    expect(edited.body.items[0]!.permissions).toEqual(inModelOrder(MANAGE));

    // Tenant walls: another tenant's organization or search term lists nothing of theirs.
    for (const q of [`org_id=${strangerOrg.id}`, `q=${theirs.slug}`]) {
      const res = await call<Page>("GET", `/api/v1/sites?${q}`, { token: owner.access_token });
      expect(res.status, q).toBe(200);
      expect(res.body).toEqual({ items: [], next_cursor: null });
    }
    // Filters and paging over the gateway.
    const first = await call<Page>("GET", `/api/v1/sites?org_id=${org.id}&limit=1`, {
      token: owner.access_token,
    });
    expect(first.body.items).toHaveLength(1);
    const second = await call<Page>(
      "GET",
      `/api/v1/sites?org_id=${org.id}&limit=1&cursor=${first.body.next_cursor}`,
      { token: owner.access_token },
    );
    expect([...first.body.items, ...second.body.items].map((s) => s.id).sort()).toEqual([a.id, b.id].sort());
    expect(second.body.next_cursor).toBeNull();
    const roles = await call<Page>("GET", "/api/v1/sites?role=editor", {
      token: editor.session.access_token,
    });
    expect(roles.body.items.map((s) => s.id)).toEqual([a.id]);
    expect((await call("GET", "/api/v1/sites?limit=201", { token: owner.access_token })).status).toBe(400);
  });

  it("401 at the edge without a staff Bearer; client-forged membership headers grant nothing", async () => {
    const owner = await verifiedUser();
    const org = await createOrg(owner.access_token);
    await createSite(owner.access_token, org.id);
    expect((await call("GET", "/api/v1/sites")).status).toBe(401);
    const stranger = await verifiedUser();
    const forged = await call<Page>("GET", "/api/v1/sites", {
      token: stranger.access_token,
      headers: {
        "x-org-memberships": JSON.stringify([
          { org_id: org.id, role: "org_owner", owner: true, permissions: [] },
        ]),
      },
    });
    expect(forged.status).toBe(200);
    expect(forged.body).toEqual({ items: [], next_cursor: null });
  });
});
