/**
 * `GET /v1/sites` (issue 23): the caller's sites through organization roles, site roles and shares, with
 * the caller's effective role and permissions (src/lib/site-permissions.ts), filters, keyset paging, its
 * limits and tenant walls. Edge headers are signed as the gateway signs them.
 */
import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import { ALL, inModelOrder, MANAGE, SHARED_MANAGE } from "../support/site-permission-table";
import {
  api,
  apiUnsigned,
  type EdgeHeaders,
  makeSite,
  orgMember,
  reader,
  service,
  siteMember,
  sites,
  sitesEnv,
  staff,
  uniqueDomain,
  uniqueSlug,
} from "../support/sites-helpers";

interface Listed {
  id: string;
  org_id: string;
  name: string;
  slug: string;
  status: string;
  role: string;
  permissions: string[];
  settings?: unknown;
}
type Page = { items: Listed[]; next_cursor: string | null };

const list = (query: string, headers: EdgeHeaders) =>
  api<Page>("GET", `/api/v1/sites${query ? `?${query}` : ""}`, { headers });

/** Every item of the list, following next_cursor (each page at most `limit`). */
async function all(query: string, headers: EdgeHeaders, limit = 2): Promise<Listed[]> {
  const out: Listed[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 50; i++) {
    const q = [query, `limit=${limit}`, cursor ? `cursor=${cursor}` : ""].filter(Boolean).join("&");
    const res = await list(q, headers);
    expect(res.status, res.text).toBe(200);
    expect(res.body.items.length).toBeLessThanOrEqual(limit);
    out.push(...res.body.items);
    cursor = res.body.next_cursor;
    if (!cursor) return out;
  }
  throw new Error("paging did not end");
}

function membersOf(
  orgs: { org_id: string; role: string; permissions?: string[]; owner?: boolean }[],
  siteRoles: { site_id: string; role: string; owner?: boolean }[] = [],
): EdgeHeaders {
  return {
    "x-user-id": newId(),
    "x-session-kind": "staff",
    "x-org-memberships": JSON.stringify(orgs.map((o) => ({ permissions: [], ...o }))),
    "x-site-memberships": JSON.stringify(siteRoles),
  };
}

describe("GET /v1/sites: whose sites", () => {
  it("an organization owner sees the organization's sites, with role and permissions, never settings", async () => {
    const { site: a, orgId, owner } = await makeSite({ settings: { seo: { meta_title: "x" } } });
    const { site: b } = await makeSite({}, orgId);
    await makeSite(); // another tenant's
    const res = await list("", owner);
    expect(res.status).toBe(200);
    expect(res.body.items.map((s) => s.id).sort()).toEqual([a.id, b.id].sort());
    const item = res.body.items.find((s) => s.id === a.id)!;
    expect(item).toMatchObject({ org_id: orgId, name: a.name, slug: a.slug, status: "active" });
    expect(item.role).toBe("site_owner");
    expect(item.permissions).toEqual(ALL);
    expect(item.settings).toBeUndefined();
    expect(res.body.next_cursor).toBeNull();
  });

  it("site roles, organization roles and shares combine; each item says what the caller may do", async () => {
    const { site: viaOrg, orgId } = await makeSite();
    const { site: viaSite } = await makeSite();
    const { site: shared, orgId: sharer } = await makeSite();
    const myOrg = newId();
    expect(
      await sites.applyTransfer({
        site_id: shared.id,
        from_org_id: sharer,
        to_org_id: myOrg,
        mode: "share",
        share_role: "site_editor",
      }),
    ).toEqual({ ok: true });
    const me = membersOf(
      [
        { org_id: orgId, role: "org_member" },
        { org_id: myOrg, role: "org_admin" },
      ],
      [{ site_id: viaSite.id.toLowerCase(), role: "site_author" }],
    );
    const items = await all("", me);
    const byId = new Map(items.map((s) => [s.id, s]));
    expect([...byId.keys()].sort()).toEqual([viaOrg.id, viaSite.id, shared.id].sort());
    expect(byId.get(viaOrg.id)).toMatchObject({
      role: "site_viewer",
      permissions: ["read", "posts:read", "media:read"],
    });
    expect(byId.get(viaSite.id)).toMatchObject({
      role: "site_author",
      permissions: ["read", "posts:read", "posts:write_own", "posts:publish", "media:read", "media:upload"],
    });
    // A share never grants integrations, nor content's permissions (the model's rule).
    expect(byId.get(shared.id)).toMatchObject({ role: "site_editor", permissions: SHARED_MANAGE });
  });

  it("the strongest grant names the role: an editor's site role beside an organization member's read", async () => {
    const { site, orgId } = await makeSite();
    const me = membersOf(
      [{ org_id: orgId, role: "org_member" }],
      [{ site_id: site.id, role: "site_editor" }],
    );
    const res = await list("", me);
    expect(res.body.items).toHaveLength(1);
    expect(res.body.items[0]).toMatchObject({ role: "site_editor", permissions: inModelOrder(MANAGE) });
  });

  it("a reader session gets an empty list, even with memberships (as batch answers it)", async () => {
    const { site, orgId } = await makeSite();
    const res = await list("", reader(orgId, site.id));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ items: [], next_cursor: null });
  });

  it("no memberships, a service caller and an unsigned caller get an empty list", async () => {
    await makeSite();
    for (const headers of [staff([]), service]) {
      const res = await list("", headers);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ items: [], next_cursor: null });
    }
    const { owner } = await makeSite();
    const unsigned = await apiUnsigned<Page>("GET", "/api/v1/sites", { headers: owner });
    expect(unsigned.body).toEqual({ items: [], next_cursor: null });
  });
});

describe("GET /v1/sites: filters", () => {
  it("status: deleted never; archived only when asked; inactive with the live ones", async () => {
    const { site: live, orgId, owner } = await makeSite();
    const { site: inactive } = await makeSite({}, orgId);
    const { site: archived } = await makeSite({}, orgId);
    const { site: deleted } = await makeSite({}, orgId);
    await api("DELETE", `/api/v1/sites/${deleted.id}`, { headers: owner });
    const db = sitesEnv.DB;
    await db.prepare("UPDATE sites SET status = 'archived' WHERE id = ?").bind(archived.id).run();
    await db.prepare("UPDATE sites SET status = 'inactive' WHERE id = ?").bind(inactive.id).run();
    const ids = async (q: string) => (await all(q, owner)).map((s) => s.id).sort();
    expect(await ids("")).toEqual([live.id, inactive.id].sort());
    expect(await ids("status=active")).toEqual([live.id]);
    expect(await ids("status=inactive")).toEqual([inactive.id]);
    expect(await ids("status=archived")).toEqual([archived.id]);
    for (const bad of ["deleted", "ACTIVE", "all", ""]) {
      const res = await list(`status=${bad}`, owner);
      expect(res.status, bad).toBe(400);
      expect(res.body).toMatchObject({ code: "BAD_REQUEST" });
    }
  });

  it("org_id: the organization's own and shared sites, among the caller's; another tenant's org is an empty list", async () => {
    const orgA = newId();
    const orgB = newId();
    const { site: a } = await makeSite({}, orgA);
    const { site: b } = await makeSite({}, orgB);
    const { site: sharedToB, orgId: sharer } = await makeSite();
    await sites.applyTransfer({
      site_id: sharedToB.id,
      from_org_id: sharer,
      to_org_id: orgB,
      mode: "share",
      share_role: "site_editor",
    });
    const me = membersOf([
      { org_id: orgA, role: "org_owner", owner: true },
      { org_id: orgB, role: "org_member" },
    ]);
    expect((await all(`org_id=${orgA}`, me)).map((s) => s.id)).toEqual([a.id]);
    expect((await all(`org_id=${orgB.toLowerCase()}`, me)).map((s) => s.id).sort()).toEqual(
      [b.id, sharedToB.id].sort(),
    );
    // Tenant wall: the sharer's organization lists only the site the caller sees through the share,
    // never its other sites; an organization the caller has nothing of is an empty list.
    const { site: sharersOther } = await makeSite({}, sharer);
    const viaSharer = (await all(`org_id=${sharer}`, me)).map((s) => s.id);
    expect(viaSharer).toEqual([sharedToB.id]);
    expect(viaSharer).not.toContain(sharersOther.id);
    expect(await list(`org_id=${newId()}`, me)).toMatchObject({
      status: 200,
      body: { items: [], next_cursor: null },
    });
    expect((await list("org_id=nope", me)).status).toBe(400);
  });

  it("role: the effective role slug, aliases accepted; an unknown slug matches nothing; a bad one is 400", async () => {
    const { site: owned, orgId } = await makeSite();
    const { site: edited } = await makeSite();
    const { site: authored } = await makeSite();
    const me = membersOf(
      [{ org_id: orgId, role: "org_owner", owner: true }],
      [
        { site_id: edited.id, role: "site_editor" },
        { site_id: authored.id, role: "site_author" },
      ],
    );
    expect((await all("role=site_owner", me)).map((s) => s.id)).toEqual([owned.id]);
    expect((await all("role=editor", me)).map((s) => s.id)).toEqual([edited.id]);
    expect((await all("role=site_author", me)).map((s) => s.id)).toEqual([authored.id]);
    expect(await all("role=site_contributor", me)).toEqual([]);
    for (const bad of ["", "Bad Role", "x".repeat(65)]) {
      expect((await list(`role=${encodeURIComponent(bad)}`, me)).status, bad).toBe(400);
    }
  });

  it("role filter pages: every match once, across pages that may be short", async () => {
    const orgId = newId();
    const made = [];
    for (let i = 0; i < 5; i++) made.push((await makeSite({}, orgId)).site);
    const editorOn = [made[1]!.id, made[4]!.id];
    const me = membersOf(
      [{ org_id: orgId, role: "org_member" }],
      editorOn.map((site_id) => ({ site_id, role: "site_editor" })),
    );
    const found = await all("role=site_editor", me, 1);
    expect(found.map((s) => s.id).sort()).toEqual(editorOn.sort());
  });

  it("q: name, slug or host, case-insensitive; % and _ are literal; trimmed and cut to 128 characters", async () => {
    const orgId = newId();
    const host = uniqueDomain("shop");
    const alias = uniqueDomain("alias");
    const { site: byName, owner } = await makeSite({ name: "Ünïcode Bakery 100%_off" }, orgId);
    const { site: bySlug } = await makeSite({ slug: uniqueSlug("zebra") }, orgId);
    const { site: byHost } = await makeSite({ primary_domain: host, aliases: [alias] }, orgId);
    const q = async (term: string) => (await all(`q=${encodeURIComponent(term)}`, owner)).map((s) => s.id);
    expect(await q("BAKERY")).toEqual([byName.id]);
    expect(await q("100%_")).toEqual([byName.id]);
    expect(await q("%")).toEqual([byName.id]);
    expect(await q("_")).toEqual([byName.id]); // slugs and hosts hold no underscore
    expect(await q("  ZEBRA  ")).toEqual([bySlug.id]);
    expect(await q(host.split(".")[1]!)).toEqual([byHost.id]);
    expect(await q(alias.split(".")[1]!)).toEqual([byHost.id]);
    // 128 characters pass as given; more are cut to 128 (a longer term still matches on its first 128).
    const longHost = `${"a".repeat(60)}.${"b".repeat(60)}.${newId().toLowerCase()}.example.com`;
    const { site: long } = await makeSite({ primary_domain: longHost }, orgId);
    expect(await q(longHost.slice(0, 128))).toEqual([long.id]);
    expect(await q(`${longHost.slice(0, 128)}zzzz`)).toEqual([long.id]);
    // 128 characters that differ from the host in the last: "u" is never in a ULID (Crockford base32), where
    // "z" was the id's sixth character for one 17-minute window in 32.
    expect(await q(`${longHost.slice(0, 127)}u`)).toEqual([]);
  });
});

describe("GET /v1/sites: paging and limits", () => {
  it("keyset paging visits every site once in id order; limit 1 and 200 pass, 0 and 201 are 400", async () => {
    const orgId = newId();
    const made = [];
    for (let i = 0; i < 5; i++) made.push((await makeSite({}, orgId)).site.id);
    const owner = orgMember(orgId);
    const paged = await all("", owner, 2);
    expect(paged.map((s) => s.id)).toEqual([...made].sort());
    expect((await list("limit=1", owner)).body.items).toHaveLength(1);
    const max = await list("limit=200", owner);
    expect(max.status).toBe(200);
    expect(max.body.items).toHaveLength(5);
    expect(max.body.next_cursor).toBeNull();
    for (const bad of ["0", "201", "-1", "1.5", "ten", ""]) {
      const res = await list(`limit=${bad}`, owner);
      expect(res.status, bad).toBe(400);
      expect(res.body).toMatchObject({ code: "BAD_REQUEST" });
    }
  });

  it("a cursor that is no id is 400; a cursor past the end is an empty page", async () => {
    const { owner } = await makeSite();
    expect((await list("cursor=nope", owner)).status).toBe(400);
    const end = await list(`cursor=${"7".repeat(26)}`, owner);
    expect(end.body).toEqual({ items: [], next_cursor: null });
  });
});

describe("GET /v1/sites: tenant walls", () => {
  it("a site of another tenant is never listed, whatever the filter or search names it by", async () => {
    const { site: theirs } = await makeSite({ name: `Secret ${newId()}` });
    const { site: mine, owner } = await makeSite();
    const me = { ...owner };
    for (const q of [
      "",
      `q=${encodeURIComponent(theirs.name)}`,
      `q=${theirs.slug}`,
      `org_id=${theirs.org_id}`,
      "status=archived",
    ]) {
      const items = await all(q, me);
      expect(
        items.map((s) => s.id),
        q,
      ).not.toContain(theirs.id);
    }
    expect((await all("", me)).map((s) => s.id)).toEqual([mine.id]);
    // A site member of one site does not see its organization's other sites.
    const { site: sibling } = await makeSite({}, mine.org_id);
    expect((await all("", siteMember(mine.id))).map((s) => s.id)).toEqual([mine.id]);
    expect((await all("", siteMember(mine.id))).map((s) => s.id)).not.toContain(sibling.id);
  });
});
