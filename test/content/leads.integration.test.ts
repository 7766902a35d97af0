/** `GET /v1/leads` and `GET /v1/leads/{id}` through the content worker with real keys. */
import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import { contentDbOf } from "../support/content-groups";
import { call, createKey, ORIGIN, problem } from "../support/content-helpers";
import {
  auditRows,
  contactValues,
  createForm,
  formsSite,
  type LeadOut,
  leadsKey,
  seedLeads,
  setFormsApp,
  submit,
} from "../support/leads-helpers";

interface Page {
  items: LeadOut[];
  next_cursor: string | null;
}

async function page(key: string, query = ""): Promise<Page> {
  const res = await call("GET", `/v1/leads${query}`, { key });
  if (res.status !== 200) throw new Error(`GET /v1/leads${query}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Page;
}

/**
 * Every page of a listing, following next_cursor. Each request takes a token of the key's strict leads
 * limit (10 a minute), so the walk uses a fresh key of the site every 9 pages.
 */
async function walk(site: Parameters<typeof leadsKey>[0], query: string): Promise<LeadOut[][]> {
  const pages: LeadOut[][] = [];
  let cursor: string | null = null;
  let key = await leadsKey(site);
  do {
    if (pages.length > 0 && pages.length % 9 === 0) key = await leadsKey(site);
    const sep = query === "" ? "?" : "&";
    const p = await page(key, cursor ? `${query}${sep}cursor=${encodeURIComponent(cursor)}` : query);
    pages.push(p.items);
    cursor = p.next_cursor;
  } while (cursor);
  return pages;
}

async function leadsTenant() {
  const site = await formsSite();
  const form = await createForm(site);
  return { site, form, key: await leadsKey(site) };
}

describe("GET /v1/leads: submissions come back as leads", () => {
  it("lists what was submitted, newest first, clean only by default, in the lead shape", async () => {
    const { site, form, key } = await leadsTenant();
    await submit(site, form.id, { ...contactValues({ name: "First" }), _page: "https://s.example/a" });
    await submit(site, form.id, { ...contactValues({ name: "Bot" }), _hp: "gotcha" });
    await submit(site, form.id, contactValues({ name: "Second" }));
    const res = await call("GET", "/v1/leads", { key });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("private, no-store");
    const body = (await res.json()) as Page;
    expect(body.next_cursor).toBeNull();
    expect(body.items.map((l) => l.fields.name)).toEqual(["Second", "First"]);
    expect(Object.keys(body.items[1]!).sort()).toEqual(
      ["created_at", "fields", "form_id", "id", "page_url", "spam_reasons", "status"].sort(),
    );
    expect(body.items[1]).toMatchObject({
      form_id: form.id,
      status: "clean",
      spam_reasons: [],
      page_url: "https://s.example/a",
    });
    const spam = await page(key, "?status=spam");
    expect(spam.items.map((l) => [l.fields.name, l.spam_reasons])).toEqual([["Bot", ["honeypot"]]]);
    const all = await page(key, "?status=all&ordem=asc");
    expect(all.items.map((l) => l.fields.name)).toEqual(["First", "Bot", "Second"]);
  });

  it("GET /v1/leads/{id} answers the lead in the same shape as a list item", async () => {
    const { site, form, key } = await leadsTenant();
    await submit(site, form.id, contactValues());
    const [item] = (await page(key)).items;
    const res = await call("GET", `/v1/leads/${item!.id}`, { key });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("private, no-store");
    expect(await res.json()).toEqual(item);
    // A lowercase ULID names the same lead.
    expect((await call("GET", `/v1/leads/${item!.id.toLowerCase()}`, { key })).status).toBe(200);
  });
});

describe("GET /v1/leads: filters", () => {
  it("form_id narrows to one form; de and ate take dates (ate inclusive: the whole day) or RFC 3339 instants", async () => {
    const site = await formsSite();
    const a = await createForm(site, { name: "A" });
    const b = await createForm(site, { name: "B" });
    // A: one lead per second from 2025-03-01T23:59:50Z (10 leads); B: 5 leads on 2025-03-02.
    await seedLeads(site.id, a.id, 10, { start: "2025-03-01T23:59:50.000Z" });
    await seedLeads(site.id, b.id, 5, { start: "2025-03-02T10:00:00.000Z" });
    const key = await leadsKey(site);
    const count = async (query: string) => (await page(key, query)).items.length;
    expect(await count(`?form_id=${a.id}`)).toBe(10);
    expect(await count(`?form_id=${b.id.toLowerCase()}`)).toBe(5);
    // A's leads at 23:59:51..23:59:59 are on March 1st (9), 00:00:00 on March 2nd (1).
    expect(await count(`?form_id=${a.id}&ate=2025-03-01`)).toBe(9);
    expect(await count(`?form_id=${a.id}&de=2025-03-02`)).toBe(1);
    expect(await count("?de=2025-03-02&ate=2025-03-02")).toBe(6);
    expect(await count("?de=2025-03-01T23:59:55Z&ate=2025-03-01T23:59:57Z")).toBe(3);
    expect(await count("?de=2025-03-02T01:59:55%2B02:00")).toBe(11);
    // The limit is per key: another key of the site for the rest.
    const key2 = await leadsKey(site);
    expect((await page(key2, "?ate=2025-03-01T23:59:50.999Z")).items).toHaveLength(0);
    expect((await page(key2, "?ate=2025-03-01T23:59:51.000Z")).items).toHaveLength(1);
  });

  it("seeding: calls in one millisecond make distinct ids (the shared runtime runs files side by side)", async () => {
    const site = await formsSite();
    const form = await createForm(site);
    await Promise.all(Array.from({ length: 20 }, () => seedLeads(site.id, form.id, 2)));
    const { results } = await (await contentDbOf(site.id))
      .prepare("SELECT count(DISTINCT id) AS n FROM leads WHERE site_id = ?")
      .bind(site.id)
      .all<{ n: number }>();
    expect(results[0]?.n).toBe(40);
  });

  it("limit: 1 and 100 are accepted, 50 is the default; 0, 101, -1, 1.5 and text are 400 (never clamped)", async () => {
    const site = await formsSite();
    const form = await createForm(site);
    await seedLeads(site.id, form.id, 120);
    const key = await leadsKey(site);
    expect((await page(key)).items).toHaveLength(50);
    expect((await page(key, "?limit=1")).items).toHaveLength(1);
    expect((await page(key, "?limit=100")).items).toHaveLength(100);
    expect((await page(key, "?limit=99")).items).toHaveLength(99);
    const key2 = await leadsKey(site);
    for (const bad of ["0", "101", "-1", "1.5", "ten", ""]) {
      const res = await call("GET", `/v1/leads?limit=${bad}`, { key: key2 });
      expect(res.status, bad).toBe(400);
      expect((await problem(res)).code).toBe("INVALID_LIMIT");
    }
  });

  it("400 for a malformed parameter, 422 for a well-formed request that cannot be processed", async () => {
    const { site, key } = await leadsTenant();
    const other = await leadsTenant();
    const cases: [string, number, string][] = [
      ["?status=deleted", 400, "INVALID_STATUS"],
      ["?status=", 400, "INVALID_STATUS"],
      ["?ordem=newest", 400, "INVALID_ORDER"],
      ["?form_id=contact", 400, "INVALID_FORM_ID"],
      ["?de=2025-02-30", 400, "INVALID_DATE"],
      ["?ate=yesterday", 400, "INVALID_DATE"],
      ["?de=2025-03-01T10:00:00", 400, "INVALID_DATE"],
      ["?cursor=garbage", 400, "INVALID_CURSOR"],
      ["?de=2025-03-02&ate=2025-03-01", 422, "INVALID_DATE_RANGE"],
      ["?de=2025-03-01T10:00:00Z&ate=2025-03-01T09:59:59Z", 422, "INVALID_DATE_RANGE"],
      [`?form_id=${newId()}`, 422, "UNKNOWN_FORM"],
      [`?form_id=${other.form.id}`, 422, "UNKNOWN_FORM"],
    ];
    let used = 0;
    let k = key;
    for (const [query, status, code] of cases) {
      if (++used % 9 === 0) k = await leadsKey(site);
      const res = await call("GET", `/v1/leads${query}`, { key: k });
      expect(res.status, query).toBe(status);
      expect((await problem(res)).code, query).toBe(code);
    }
  });
});

describe("GET /v1/leads: cursor paging", () => {
  for (const ordem of ["desc", "asc"]) {
    it(`pages of ${ordem} order cover every lead once, without duplicates or gaps (ties on created_at too)`, async () => {
      const site = await formsSite();
      const form = await createForm(site);
      await seedLeads(site.id, form.id, 45, { spamEvery: 4 });
      // Three leads sharing one created_at: the id breaks the tie.
      await (await contentDbOf(site.id))
        .prepare(
          `INSERT INTO leads (id, site_id, form_id, status, fields_json, content_hash, created_at)
         VALUES (?1, ?4, ?5, 'clean', '{}', 'x', '2025-01-01T00:00:20.000Z'),
                (?2, ?4, ?5, 'clean', '{}', 'y', '2025-01-01T00:00:20.000Z'),
                (?3, ?4, ?5, 'clean', '{}', 'z', '2025-01-01T00:00:20.000Z')`,
        )
        .bind(newId(), newId(), newId(), site.id, form.id)
        .run();
      const expected = (
        await (
          await contentDbOf(site.id)
        )
          .prepare(
            `SELECT id FROM leads WHERE site_id = ? AND status = 'clean' ORDER BY created_at ${ordem}, id ${ordem}`,
          )
          .bind(site.id)
          .all<{ id: string }>()
      ).results.map((r) => r.id);
      expect(expected).toHaveLength(45 - 11 + 3);
      const pages = await walk(site, `?limit=7&ordem=${ordem}`);
      expect(pages.flat().map((l) => l.id)).toEqual(expected);
      expect(pages.slice(0, -1).every((p) => p.length === 7)).toBe(true);
    });
  }

  it("a lead arriving while paging does not shift the pages (keyset, not offset)", async () => {
    const site = await formsSite();
    const form = await createForm(site);
    await seedLeads(site.id, form.id, 6);
    const key = await leadsKey(site);
    const first = await page(key, "?limit=3");
    await submit(site, form.id, contactValues());
    const second = await page(key, `?limit=3&cursor=${encodeURIComponent(first.next_cursor!)}`);
    const ids = [...first.items, ...second.items].map((l) => l.id);
    expect(new Set(ids).size).toBe(6);
  });

  it("a cursor replayed with other filters, another order or by another site's key is 400", async () => {
    const site = await formsSite();
    const form = await createForm(site);
    await seedLeads(site.id, form.id, 5);
    const key = await leadsKey(site);
    const { next_cursor } = await page(key, "?limit=2");
    const cursor = encodeURIComponent(next_cursor!);
    for (const query of [`?limit=2&status=all&cursor=${cursor}`, `?limit=2&ordem=asc&cursor=${cursor}`]) {
      const res = await call("GET", `/v1/leads${query}`, { key });
      expect(res.status).toBe(400);
      expect((await problem(res)).code).toBe("INVALID_CURSOR");
    }
    const other = await leadsTenant();
    const res = await call("GET", `/v1/leads?limit=2&cursor=${cursor}`, { key: other.key });
    expect(res.status).toBe(400);
    // Same site, another key: the cursor belongs to the listing, not the key.
    expect(
      (await call("GET", `/v1/leads?limit=2&cursor=${cursor}`, { key: await leadsKey(site) })).status,
    ).toBe(200);
  });
});

describe("who may read leads", () => {
  it("the scope leads:read is required (403), with a ck_ key (a pk_ key cannot even carry it)", async () => {
    const { site, form } = await leadsTenant();
    await submit(site, form.id, contactValues());
    const noScope = await createKey(site, { scopes: ["posts:read", "export"] });
    for (const path of ["/v1/leads", `/v1/leads/${newId()}`]) {
      const res = await call("GET", path, { key: noScope.key });
      expect(res.status).toBe(403);
      expect((await problem(res)).code).toBe("INSUFFICIENT_SCOPE");
    }
    const pk = await createKey(site, { kind: "public", scopes: ["posts:read"] });
    expect((await call("GET", "/v1/leads", { key: pk.key, origin: ORIGIN })).status).toBe(403);
    expect((await call("GET", "/v1/leads")).status).toBe(401);
  });

  it("a site without the forms app gets 404 on the list", async () => {
    const { site, key } = await leadsTenant();
    await setFormsApp(site, false);
    const res = await call("GET", "/v1/leads", { key });
    expect(res.status).toBe(404);
    expect((await problem(res)).code).toBe("NOT_FOUND");
  });

  it("a key without a creating user (authorship context) gets 422 and reads nothing", async () => {
    const { site, form, key } = await leadsTenant();
    await submit(site, form.id, contactValues());
    const legacy = await createKey(site, { scopes: ["leads:read", "export"] });
    await (await contentDbOf(site.id))
      .prepare("UPDATE api_keys SET created_by = NULL WHERE id = ?")
      .bind(legacy.id)
      .run();
    for (const path of ["/v1/leads", `/v1/leads/${newId()}`, "/v1/export?resource=leads"]) {
      const res = await call("GET", path, { key: legacy.key });
      expect(res.status, path).toBe(422);
      expect((await problem(res)).code).toBe("NO_AUTHORSHIP_CONTEXT");
    }
    expect(await auditRows(site.id)).toEqual([]);
    expect((await call("GET", "/v1/leads", { key })).status).toBe(200);
  });
});

describe("GET /v1/leads/{id}: one opaque 404", () => {
  it("another tenant's lead, a missing id, a malformed id and a site without the forms app: same status and body", async () => {
    const a = await leadsTenant();
    const b = await leadsTenant();
    await submit(b.site, b.form.id, contactValues());
    await submit(a.site, a.form.id, contactValues());
    const [bLead] = (await page(b.key)).items;
    const [aLead] = (await page(a.key)).items;
    const missing = await call("GET", `/v1/leads/${newId()}`, { key: a.key });
    expect(missing.status).toBe(404);
    const body = await missing.text();
    for (const ref of [
      bLead!.id,
      bLead!.id.toLowerCase(),
      "not-a-lead",
      "00000000-0000-0000-0000-000000000000",
    ]) {
      const res = await call("GET", `/v1/leads/${ref}`, { key: a.key });
      expect(res.status, ref).toBe(404);
      expect(await res.text(), ref).toBe(body);
    }
    await setFormsApp(a.site, false);
    const off = await call("GET", `/v1/leads/${aLead!.id}`, { key: await leadsKey(a.site) });
    expect(off.status).toBe(404);
    expect(await off.text()).toBe(body);
    // B still reads its own lead.
    expect((await call("GET", `/v1/leads/${bLead!.id}`, { key: b.key })).status).toBe(200);
  });

  it("A's listing never contains B's leads", async () => {
    const a = await leadsTenant();
    const b = await leadsTenant();
    await submit(b.site, b.form.id, contactValues());
    expect((await page(a.key, "?status=all")).items).toEqual([]);
  });
});

describe("every read is audited", () => {
  it("a list writes who (key and its creator), what (ids, filters, count), when; a get writes the id; a 404 writes its attempt", async () => {
    const { site, form, key } = await leadsTenant();
    await submit(site, form.id, contactValues());
    await submit(site, form.id, contactValues());
    const keyRow = await (await contentDbOf(site.id))
      .prepare("SELECT id, created_by FROM api_keys WHERE site_id = ? ORDER BY created_at DESC")
      .bind(site.id)
      .first<{ id: string; created_by: string }>();
    const before = new Date().toISOString();
    const requestId = newId();
    const res = await call("GET", `/v1/leads?form_id=${form.id}&limit=5&ordem=asc&de=2020-01-01`, {
      key,
      ip: "203.0.113.50",
      headers: { "x-request-id": requestId },
    });
    const listed = (await res.json()) as Page;
    await call("GET", `/v1/leads/${listed.items[0]!.id}`, { key });
    await call("GET", `/v1/leads/${newId()}`, { key });
    const rows = await auditRows(site.id);
    expect(rows).toHaveLength(3);
    const [list, get, miss] = rows;
    expect(list).toMatchObject({
      actor_type: "api_key",
      actor_id: keyRow!.id,
      actor_user_id: keyRow!.created_by,
      action: "leads.list",
      outcome: "served",
      resource_type: "lead",
      resource_ids: listed.items.map((l) => l.id),
      item_count: 2,
      client_ip: "203.0.113.50",
      request_id: requestId,
      details: {
        form_id: form.id,
        status: "clean",
        from: "2020-01-01T00:00:00.000Z",
        to_exclusive: null,
        order: "asc",
        limit: 5,
        page: "first",
      },
    });
    expect(list!.created_at >= before).toBe(true);
    expect(list!.completed_at).toBe(list!.created_at);
    expect(get).toMatchObject({
      action: "leads.read",
      outcome: "served",
      resource_ids: [listed.items[0]!.id],
      item_count: 1,
    });
    expect(miss).toMatchObject({
      action: "leads.read",
      outcome: "not_found",
      resource_ids: [],
      item_count: 0,
    });
    expect(miss!.details).toHaveProperty("requested_id");
  });

  it("a list refused by the forms app switch is audited as not_found; refused requests (400/422/403) write nothing", async () => {
    const { site, key } = await leadsTenant();
    await call("GET", "/v1/leads?limit=0", { key });
    await call("GET", `/v1/leads?form_id=${newId()}`, { key });
    const noScope = await createKey(site, { scopes: ["export"] });
    await call("GET", "/v1/leads", { key: noScope.key });
    expect(await auditRows(site.id)).toEqual([]);
    await setFormsApp(site, false);
    await call("GET", "/v1/leads", { key });
    expect((await auditRows(site.id)).map((r) => [r.action, r.outcome])).toEqual([
      ["leads.list", "not_found"],
    ]);
  });

  it("a failed audit write fails the read closed: 500, and no lead in the answer", async () => {
    const { site, form, key } = await leadsTenant();
    await submit(site, form.id, contactValues({ name: "Secret Person" }));
    const [lead] = (await page(key)).items;
    const trigger = `audit_down_${site.id}`;
    const db = await contentDbOf(site.id);
    await db
      .prepare(
        `CREATE TRIGGER ${trigger} BEFORE INSERT ON audit_events WHEN NEW.site_id = '${site.id}'
       BEGIN SELECT RAISE(ABORT, 'audit store down'); END`,
      )
      .run();
    try {
      for (const path of ["/v1/leads", `/v1/leads/${lead!.id}`, "/v1/export?resource=leads"]) {
        const res = await call("GET", path, { key });
        expect(res.status, path).toBe(500);
        const text = await res.text();
        expect(text).not.toContain("Secret Person");
        expect(text).not.toContain(lead!.id);
      }
    } finally {
      await db.prepare(`DROP TRIGGER ${trigger}`).run();
    }
  });
});
