/**
 * Operator console, list and detail (spec: Platform operator console): cross-tenant, any state, `q`
 * literal and case-insensitive on slug and primary domain, exact `org_id` and `status`, keyset paging in
 * one total order over ULID and UUID ids that neither repeats nor skips while sites are created.
 */
import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import { MAX_SEARCH_CHARS } from "../../src/sites/operator/console";
import { ID_ORDER_KEY_SQL, idOrderKey, keyAsUuid } from "../../src/sites/operator/id-order";
import { api, makeSite, orgMember, proveHosts, sitesEnv, uniqueDomain } from "../support/sites-helpers";

const readOp = { "x-platform-operator": "operator_read", "x-user-id": newId() };

interface ListItem {
  id: string;
  org_id: string;
  slug: string;
  status: string;
  status_reason: string | null;
  status_changed_at: string | null;
  primary_domain: string | null;
  canonical_host: string;
}
interface ListBody {
  items: ListItem[];
  next_cursor: string | null;
}

function list(query: string, headers: Record<string, string> = readOp) {
  return api<ListBody>("GET", `/api/v1/platform/sites?${query}`, { headers });
}

/** A slug prefix no other test uses (slugs are at most 63 characters). */
function namespace(tag: string): string {
  return `${tag}-${newId().toLowerCase().slice(-12)}`;
}

/** A legacy site whose id is a UUID (inserted as older data was). */
async function legacySite(slug: string, orgId = newId()): Promise<string> {
  const id = crypto.randomUUID();
  const at = new Date().toISOString();
  await sitesEnv.DB.prepare(
    "INSERT INTO sites (id, org_id, name, slug, status_changed_at, created_at, updated_at) VALUES (?, ?, 'Legacy', ?, ?, ?, ?)",
  )
    .bind(id, orgId, slug, at, at, at)
    .run();
  return id;
}

/** Every page of `query` with `limit`, following next_cursor; `between` runs after each page. */
async function allPages(query: string, limit: number, between: () => Promise<void> = async () => {}) {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const res = await list(`${query}&limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.items.length).toBeLessThanOrEqual(limit);
    ids.push(...res.body.items.map((i) => i.id));
    cursor = res.body.next_cursor;
    if (cursor === null) return ids;
    expect(cursor).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    await between();
  }
  throw new Error("paging did not end");
}

describe("the order key", () => {
  it("SQLite computes the same 128-bit key as the code, for ULIDs and UUIDs in any case", async () => {
    const uuid = crypto.randomUUID();
    const ids = [
      newId(),
      "00000000000000000000000000",
      "7ZZZZZZZZZZZZZZZZZZZZZZZZZ",
      uuid,
      uuid.toUpperCase(),
    ];
    for (const id of ids) {
      const row = await sitesEnv.DB.prepare(`SELECT ${ID_ORDER_KEY_SQL} AS k FROM (SELECT ? AS id)`)
        .bind(id)
        .first<{ k: string }>();
      expect(row?.k).toBe(idOrderKey(id));
    }
    expect(idOrderKey("7ZZZZZZZZZZZZZZZZZZZZZZZZZ")).toBe("f".repeat(32));
    expect(idOrderKey(uuid.toUpperCase())).toBe(uuid.replaceAll("-", ""));
    expect(keyAsUuid("0123456789abcdef0123456789abcdef")).toBe("01234567-89ab-cdef-0123-456789abcdef");
    expect(idOrderKey("not-an-id")).toBeNull();
  });

  it("ULIDs keep their time order", () => {
    const a = newId();
    const b = newId();
    expect(idOrderKey(a)! < idOrderKey(b)!).toBe(true);
  });

  it("the list's keyset runs on the expression index of the migration (same expression text)", async () => {
    const { results } = await sitesEnv.DB.prepare(
      `EXPLAIN QUERY PLAN SELECT id FROM sites WHERE ${ID_ORDER_KEY_SQL} > ? ORDER BY ${ID_ORDER_KEY_SQL} LIMIT 5`,
    )
      .bind("0")
      .all<{ detail: string }>();
    expect(results.map((r) => r.detail).join("\n")).toContain("sites_id_key");
  });
});

describe("GET /v1/platform/sites", () => {
  it("lists every organization's sites in any state, with status_reason and status_changed_at", async () => {
    const ns = namespace("all");
    const { site: live } = await makeSite({ slug: `${ns}-live` });
    const { site: gone, owner } = await makeSite({ slug: `${ns}-gone` });
    expect((await api("DELETE", `/api/v1/sites/${gone.id}`, { headers: owner })).status).toBe(204);
    const res = await list(`q=${ns}`);
    expect(res.status).toBe(200);
    const byId = new Map(res.body.items.map((i) => [i.id, i]));
    expect([...byId.keys()].sort()).toEqual([live.id, gone.id].sort());
    expect(byId.get(gone.id)).toMatchObject({ status: "deleted", status_reason: "deleted_by_customer" });
    expect(byId.get(gone.id)?.status_changed_at).toEqual(expect.any(String));
    expect(byId.get(live.id)).toMatchObject({ status: "active", org_id: live.org_id, slug: live.slug });
    expect(res.body.next_cursor).toBeNull();
  });

  it("q: a case-insensitive partial match on slug and on primary domain", async () => {
    const ns = namespace("case");
    const token = `tok${newId().toLowerCase().slice(-8)}`;
    const { site: bySlug } = await makeSite({ slug: `${ns}-a` });
    const { site: byDomain } = await makeSite({ primary_domain: `www.${token}.example.com` });
    expect((await list(`q=${ns.toUpperCase()}`)).body.items.map((i) => i.id)).toEqual([bySlug.id]);
    expect((await list(`q=${ns.slice(3, 12)}`)).body.items.map((i) => i.id)).toContain(bySlug.id);
    expect((await list(`q=${token.toUpperCase()}.EXAMPLE`)).body.items.map((i) => i.id)).toEqual([
      byDomain.id,
    ]);
    // Aliases are not searched (the spec names slug and primary domain).
    const alias = `alias.${token}x.example.com`;
    await makeSite({ aliases: [alias] });
    expect((await list(`q=${encodeURIComponent(`${token}x`)}`)).body.items).toEqual([]);
  });

  it("q: % and _ are literal characters, never wildcards", async () => {
    const ns = namespace("lit");
    await makeSite({ slug: `${ns}-a` });
    for (const q of ["%", "_", `${ns}%`, `${ns.slice(0, -1)}_`, `${ns.slice(0, 4)}%${ns.slice(6)}`, "%%%"]) {
      const res = await list(`q=${encodeURIComponent(q)}`);
      expect(res.status, q).toBe(200);
      expect(res.body.items, q).toEqual([]);
    }
    expect((await list(`q=${encodeURIComponent(` ${ns}-a `)}`)).body.items).toHaveLength(1);
  });

  it("q: trimmed, then cut to 128 characters (a 128- and a 129-character term both work, never a 500)", async () => {
    const label = () => newId().toLowerCase().repeat(3).slice(0, 60);
    const domain = `${label()}.${label()}.${label()}.example.com`;
    expect(domain.length).toBeGreaterThan(MAX_SEARCH_CHARS + 10);
    const { site } = await makeSite({ primary_domain: domain });
    const term128 = domain.slice(0, MAX_SEARCH_CHARS);
    const exact = await list(`q=${encodeURIComponent(`  ${term128.toUpperCase()}  `)}`);
    expect(exact.status, exact.text).toBe(200);
    expect(exact.body.items.map((i) => i.id)).toEqual([site.id]);
    // Character 129 does not match the domain: it matches only because the term is cut to 128.
    const term129 = `${term128}#`;
    const cut = await list(`q=${encodeURIComponent(term129)}`);
    expect(cut.status, cut.text).toBe(200);
    expect(cut.body.items.map((i) => i.id)).toEqual([site.id]);
    const long = await list(`q=${"z".repeat(5000)}`);
    expect(long.status).toBe(200);
    expect(long.body.items).toEqual([]);
  });

  it("org_id: exact (ULID in any case or UUID); anything else is 400", async () => {
    const orgId = newId();
    const ns = namespace("org");
    const a = await makeSite({ slug: `${ns}-1` }, orgId);
    const b = await makeSite({ slug: `${ns}-2` }, orgId);
    await makeSite({ slug: `${ns}-3` });
    const res = await list(`org_id=${orgId.toLowerCase()}`);
    expect(res.status).toBe(200);
    expect(res.body.items.map((i) => i.id).sort()).toEqual([a.site.id, b.site.id].sort());
    const uuidOrg = crypto.randomUUID();
    const legacy = await legacySite(`${ns}-legacy`, uuidOrg);
    expect((await list(`org_id=${uuidOrg.toUpperCase()}`)).body.items.map((i) => i.id)).toEqual([legacy]);
    for (const bad of ["nope", "", "1", `${orgId}x`, "' OR 1=1 --"]) {
      const r = await list(`org_id=${encodeURIComponent(bad)}`);
      expect(r.status, bad).toBe(400);
      expect(r.body).toMatchObject({ code: "BAD_REQUEST" });
    }
  });

  it("status: exact; an unknown label is 400, never the whole list", async () => {
    const ns = namespace("st");
    const { site: live } = await makeSite({ slug: `${ns}-live` });
    const { site: gone, owner } = await makeSite({ slug: `${ns}-gone` });
    await api("DELETE", `/api/v1/sites/${gone.id}`, { headers: owner });
    expect((await list(`q=${ns}&status=deleted`)).body.items.map((i) => i.id)).toEqual([gone.id]);
    expect((await list(`q=${ns}&status=active`)).body.items.map((i) => i.id)).toEqual([live.id]);
    expect((await list(`q=${ns}&status=archived`)).body.items).toEqual([]);
    for (const bad of ["bogus", "ACTIVE", "", "active,deleted", "%"]) {
      const r = await list(`q=${ns}&status=${encodeURIComponent(bad)}`);
      expect(r.status, bad).toBe(400);
      expect(r.body).toMatchObject({ code: "BAD_REQUEST" });
    }
  });

  it("limit: 1..200 (default 50); anything else is 400", async () => {
    expect((await list("limit=1")).status).toBe(200);
    expect((await list("limit=200")).status).toBe(200);
    const ns = namespace("dflt");
    const at = new Date().toISOString();
    await sitesEnv.DB.batch(
      Array.from({ length: 51 }, (_, i) =>
        sitesEnv.DB.prepare(
          "INSERT INTO sites (id, org_id, name, slug, created_at, updated_at) VALUES (?, ?, 'Legacy', ?, ?, ?)",
        ).bind(crypto.randomUUID(), newId(), `${ns}-${i}`, at, at),
      ),
    );
    const page = await list(`q=${ns}`);
    expect(page.body.items).toHaveLength(50);
    expect(page.body.next_cursor).not.toBeNull();
    expect((await list(`q=${ns}&cursor=${page.body.next_cursor}`)).body.items).toHaveLength(1);
    expect((await list(`q=${ns}&limit=200`)).body.items).toHaveLength(51);
    for (const bad of ["0", "201", "-1", "1.5", "abc", "", "1e2", "99999999999"]) {
      const r = await list(`limit=${bad}`);
      expect(r.status, bad).toBe(400);
      expect(r.body).toMatchObject({ code: "BAD_REQUEST" });
    }
  });

  it("cursor: a non-id is 400 (never 500); a ULID or UUID that names no site is a position", async () => {
    for (const bad of [
      "nope",
      "",
      "1",
      "' OR 1=1 --",
      "8ZZZZZZZZZZZZZZZZZZZZZZZZZ",
      `${crypto.randomUUID()}0`,
    ]) {
      const r = await list(`cursor=${encodeURIComponent(bad)}`);
      expect(r.status, bad).toBe(400);
      expect(r.body).toMatchObject({ code: "BAD_REQUEST" });
    }
    expect((await list(`cursor=${crypto.randomUUID()}`)).status).toBe(200);
    expect((await list(`cursor=${newId()}`)).status).toBe(200);
    expect((await list("cursor=ffffffff-ffff-ffff-ffff-ffffffffffff")).body).toEqual({
      items: [],
      next_cursor: null,
    });
  });

  it("the previous page's last id (ULID or UUID) works as the cursor, like next_cursor", async () => {
    const ns = namespace("cur");
    for (let i = 0; i < 5; i++) await makeSite({ slug: `${ns}-${i}` });
    await legacySite(`${ns}-u1`);
    await legacySite(`${ns}-u2`);
    const all = await allPages(`q=${ns}`, 100);
    expect(all).toHaveLength(7);
    for (let i = 0; i < all.length - 1; i++) {
      const last = all[i]!;
      const byId = await list(`q=${ns}&limit=100&cursor=${last}`);
      expect(byId.body.items.map((s) => s.id)).toEqual(all.slice(i + 1));
      const first = await list(`q=${ns}&limit=${i + 1}`);
      expect(first.body.next_cursor).toBe(keyAsUuid(idOrderKey(last)!));
    }
  });

  it("pages ULID and legacy UUID sites in one total order: each once, by their 128-bit value", async () => {
    const ns = namespace("mix");
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      ids.push((await makeSite({ slug: `${ns}-n${i}` })).site.id);
      ids.push(await legacySite(`${ns}-u${i}`));
    }
    const paged = await allPages(`q=${ns}`, 3);
    expect(paged).toHaveLength(ids.length);
    expect(new Set(paged)).toEqual(new Set(ids));
    const keys = paged.map((id) => idOrderKey(id)!);
    expect(keys).toEqual([...keys].sort());
  });

  it("paging with a search neither repeats nor skips rows while matching sites are created", async () => {
    const ns = namespace("race");
    const existing: string[] = [];
    for (let i = 0; i < 24; i++) existing.push((await makeSite({ slug: `${ns}-a${i}` })).site.id);
    for (let i = 0; i < 6; i++) existing.push(await legacySite(`${ns}-u${i}`));
    await makeSite({ slug: namespace("other") });

    const created: string[] = [];
    let n = 0;
    const createTwo = async () => {
      const made = await Promise.all([
        makeSite({ slug: `${ns}-b${n++}` }),
        legacySite(`${ns}-v${n++}`).then((id) => ({ site: { id } })),
      ]);
      created.push(...made.map((m) => m.site.id));
    };
    // Creations run both between pages and concurrently with the page requests.
    const background = (async () => {
      for (let i = 0; i < 10; i++) await createTwo();
    })();
    const seen = await allPages(`q=${ns}`, 4, createTwo);
    await background;

    expect(new Set(seen).size).toBe(seen.length);
    expect(existing.filter((id) => !seen.includes(id))).toEqual([]);
    const all = new Set([...existing, ...created]);
    expect(seen.filter((id) => !all.has(id))).toEqual([]);
    const keys = seen.map((id) => idOrderKey(id)!);
    expect(keys).toEqual([...keys].sort());
  });

  it("filters and keyset share one clause: status + org_id + q + cursor page exactly the matching rows", async () => {
    const orgId = newId();
    const ns = namespace("and");
    const want: string[] = [];
    for (let i = 0; i < 6; i++) {
      const { site, owner } = await makeSite({ slug: `${ns}-${i}` }, orgId);
      if (i % 2 === 0) await api("DELETE", `/api/v1/sites/${site.id}`, { headers: owner });
      else want.push(site.id);
    }
    await makeSite({ slug: `${ns}-elsewhere` });
    const paged = await allPages(`q=${ns}&org_id=${orgId}&status=active`, 1);
    expect(paged).toEqual(want);
  });
});

describe("GET /v1/platform/sites/{site_id}", () => {
  it("any state: list fields, lifecycle, default_language, updated_at and domains; no post count", async () => {
    const primary = uniqueDomain();
    const alias = uniqueDomain("alias");
    const { site, owner } = await makeSite({
      primary_domain: primary,
      aliases: [alias],
      default_language: "pt-BR",
    });
    // The canonical host is the primary domain once proved (docs/decisions/host-proof.md).
    await proveHosts(owner, primary);
    await api("DELETE", `/api/v1/sites/${site.id}`, { headers: owner });
    const res = await api("GET", `/api/v1/platform/sites/${site.id}`, { headers: readOp });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: site.id,
      org_id: site.org_id,
      name: site.name,
      slug: site.slug,
      primary_domain: primary,
      canonical_host: primary,
      status: "deleted",
      status_reason: "deleted_by_customer",
      status_changed_at: expect.any(String),
      previous_status: "active",
      default_language: "pt-BR",
      created_at: site.created_at,
      updated_at: expect.any(String),
      domains: { primary, aliases: [alias], canonical_host: primary },
    });
  });

  it("a legacy UUID site in any case; the canonical host falls back to the platform host", async () => {
    const slug = namespace("uuid");
    const id = await legacySite(slug);
    const res = await api("GET", `/api/v1/platform/sites/${id.toUpperCase()}`, { headers: readOp });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id,
      domains: { primary: null, aliases: [], canonical_host: `${slug}.${sitesEnv.PLATFORM_DOMAIN}` },
    });
  });

  it("400 for an id that is neither ULID nor UUID; 404 for a missing ULID or UUID", async () => {
    for (const bad of ["nope", "123", "8ZZZZZZZZZZZZZZZZZZZZZZZZZ"]) {
      const r = await api("GET", `/api/v1/platform/sites/${bad}`, { headers: readOp });
      expect(r.status, bad).toBe(400);
      expect(r.body).toMatchObject({ code: "BAD_REQUEST" });
    }
    for (const missing of [newId(), crypto.randomUUID()]) {
      const r = await api("GET", `/api/v1/platform/sites/${missing}`, { headers: readOp });
      expect(r.status).toBe(404);
      expect(r.body).toMatchObject({ code: "NOT_FOUND" });
    }
  });
});

describe("reads need an operator capability", () => {
  it("no header, a forged value or a customer's memberships: 403 FORBIDDEN before any parsing", async () => {
    const { site, owner } = await makeSite();
    const attempts: Record<string, string>[] = [
      {},
      { "x-platform-operator": "root" },
      { "x-platform-operator": "OPERATOR_ADMIN" },
      { "x-platform-operator": "" },
      owner,
      { ...orgMember(site.org_id), "x-platform-operator": "operator" },
    ];
    for (const headers of attempts) {
      for (const path of [
        "/api/v1/platform/sites",
        "/api/v1/platform/sites?cursor=nope",
        `/api/v1/platform/sites/${site.id}`,
        "/api/v1/platform/sites/nope",
      ]) {
        const r = await api("GET", path, { headers });
        expect(r.status, `${JSON.stringify(headers)} ${path}`).toBe(403);
        expect(r.body).toMatchObject({ code: "FORBIDDEN" });
      }
    }
    const admin = { "x-platform-operator": "operator_admin", "x-user-id": newId() };
    expect((await api("GET", `/api/v1/platform/sites/${site.id}`, { headers: admin })).status).toBe(200);
  });
});
