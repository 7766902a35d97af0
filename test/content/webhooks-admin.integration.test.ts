/** Webhook administration by site staff: create (secret shown once), list, delete, rotate, delivery log. */
import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import { contentDbOf } from "../support/content-groups";
import { call, content, makeSite, ownerHeaders, problem, staffHeaders } from "../support/content-helpers";
import { createWebhook, inbox, webhooksPath } from "../support/webhook-helpers";

const EVENTS = [
  "post.published",
  "post.updated",
  "post.unpublished",
  "post.deleted",
  "media.ready",
  "lead.created",
];

describe("POST /api/v1/sites/{site_id}/webhooks", () => {
  it("registers a webhook and shows its Standard Webhooks secret once (whsec_ + base64 of 32 bytes), stored only sealed", async () => {
    const site = await makeSite();
    const { url } = inbox();
    const res = await call("POST", webhooksPath(site.id), {
      headers: ownerHeaders(site, "user-1"),
      body: { url, events: ["post.published", "media.ready"], description: "search index" },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const body = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(
      [
        "carried_over",
        "created_at",
        "created_by",
        "description",
        "events",
        "id",
        "secret",
        "secret_rotated_at",
        "url",
      ].sort(),
    );
    expect(body).toMatchObject({
      url,
      events: ["post.published", "media.ready"],
      description: "search index",
      created_by: "user-1",
      secret_rotated_at: null,
    });
    const secret = String(body.secret);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(atob(secret.slice(6)).length).toBe(32);

    const row = await (await contentDbOf(site.id))
      .prepare("SELECT * FROM webhooks WHERE id = ?")
      .bind(body.id)
      .first<Record<string, unknown>>();
    expect(JSON.stringify(row)).not.toContain(secret.slice(6));
    expect(row!.secret_encrypted).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);

    const list = await call("GET", webhooksPath(site.id), { headers: ownerHeaders(site) });
    expect(list.status).toBe(200);
    const text = await list.text();
    expect(text).not.toContain(secret.slice(6));
    expect((JSON.parse(text) as { items: { id: string; events: string[] }[] }).items).toEqual([
      expect.objectContaining({ id: body.id, url, events: ["post.published", "media.ready"] }),
    ]);
  });

  it("refuses URLs that are not absolute https without credentials or fragment (400 INVALID_WEBHOOK_URL)", async () => {
    const site = await makeSite();
    for (const url of [
      "http://hooks.test/inbox/x",
      "ftp://hooks.test/inbox/x",
      "hooks.test/inbox/x",
      "https://user:pass@hooks.test/inbox/x",
      "https://hooks.test/inbox/x#frag",
      `https://hooks.test/${"a".repeat(2100)}`,
      "javascript:alert(1)",
    ]) {
      const res = await call("POST", webhooksPath(site.id), {
        headers: ownerHeaders(site),
        body: { url, events: EVENTS },
      });
      expect(res.status, url).toBe(400);
      expect(["INVALID_WEBHOOK_URL", "BAD_REQUEST"], url).toContain((await problem(res)).code);
    }
  });

  it("refuses hosts that are or resolve to private, loopback or link-local addresses (422 WEBHOOK_URL_NOT_PUBLIC)", async () => {
    const site = await makeSite();
    for (const host of [
      "10.0.0.5",
      "127.0.0.1",
      "169.254.169.254",
      "[::1]",
      "[::ffff:127.0.0.1]",
      "2130706433",
      "localhost",
      "metadata.internal",
      "private.test",
      "loopback.test",
      "metadata.test",
      "mixed.test",
      "v6private.test",
      "cname-private.test",
    ]) {
      const res = await call("POST", webhooksPath(site.id), {
        headers: ownerHeaders(site),
        body: { url: `https://${host}/hook`, events: EVENTS },
      });
      expect(res.status, host).toBe(422);
      expect((await problem(res)).code, host).toBe("WEBHOOK_URL_NOT_PUBLIC");
    }
    const count = await (await contentDbOf(site.id))
      .prepare("SELECT count(*) AS n FROM webhooks WHERE site_id = ?")
      .bind(site.id)
      .first<{ n: number }>();
    expect(count!.n).toBe(0);
  });

  it("accepts a public name that does not resolve yet or whose DNS is down or slow (every delivery checks again)", async () => {
    const site = await makeSite();
    for (const host of ["nxdomain.test", "servfail.test", "dnsdown.test", "dnsslow.test"]) {
      const started = Date.now();
      const res = await call("POST", webhooksPath(site.id), {
        headers: ownerHeaders(site),
        body: { url: `https://${host}/hook`, events: EVENTS },
      });
      expect(res.status, host).toBe(201);
      // The DNS check has the attempt's deadline (1 s in tests): a hung resolver never hangs registration.
      expect(Date.now() - started, host).toBeLessThan(4000);
    }
  });

  it("refuses unknown, empty or missing events and unknown body shapes with 400", async () => {
    const site = await makeSite();
    const { url } = inbox();
    for (const body of [
      { url, events: ["post.erased"] },
      { url, events: [] },
      { url },
      { events: EVENTS },
      { url, events: "post.published" },
    ]) {
      const res = await call("POST", webhooksPath(site.id), { headers: ownerHeaders(site), body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
  });

  it("a site has at most 20 webhooks: the 20th is created, the 21st is 409 WEBHOOK_LIMIT_REACHED", async () => {
    const site = await makeSite();
    for (let i = 0; i < 19; i++) await createWebhook(site, { url: inbox().url });
    const twentieth = await call("POST", webhooksPath(site.id), {
      headers: ownerHeaders(site),
      body: { url: inbox().url, events: EVENTS },
    });
    expect(twentieth.status).toBe(201);
    const over = await call("POST", webhooksPath(site.id), {
      headers: ownerHeaders(site),
      body: { url: inbox().url, events: EVENTS },
    });
    expect(over.status).toBe(409);
    expect((await problem(over)).code).toBe("WEBHOOK_LIMIT_REACHED");
  });

  it("concurrent creations never pass the limit", async () => {
    const site = await makeSite();
    for (let i = 0; i < 17; i++) await createWebhook(site, { url: inbox().url });
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        call("POST", webhooksPath(site.id), {
          headers: ownerHeaders(site),
          body: { url: inbox().url, events: EVENTS },
        }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(3);
    expect(results.filter((r) => r.status === 409)).toHaveLength(3);
  });
});

describe("webhook administration: who may", () => {
  it("401 without a signed-in user", async () => {
    const site = await makeSite();
    expect((await call("GET", webhooksPath(site.id))).status).toBe(401);
    expect(
      (await call("POST", webhooksPath(site.id), { body: { url: inbox().url, events: EVENTS } })).status,
    ).toBe(401);
  });

  it("the API-key administrators may (org_owner, org_admin, site_owner); everyone else (members:manage alone too) gets the missing site's 404", async () => {
    const site = await makeSite();
    const hook = await createWebhook(site, { url: inbox().url });
    const allowed = [
      staffHeaders("u1", { org: [{ org_id: site.org_id, role: "org_owner" }] }),
      staffHeaders("u2", { org: [{ org_id: site.org_id, role: "org_admin" }] }),
      staffHeaders("u4", { site: [{ site_id: site.id, role: "site_owner" }] }),
    ];
    for (const headers of allowed) {
      expect((await call("GET", webhooksPath(site.id), { headers })).status).toBe(200);
    }
    const missing = await call("GET", webhooksPath(newId()), { headers: ownerHeaders(site) });
    expect(missing.status).toBe(404);
    const missingBody = await missing.text();
    const denied = [
      staffHeaders("u3", { org: [{ org_id: site.org_id, role: "editor", permissions: ["members:manage"] }] }),
      staffHeaders("u5", { org: [{ org_id: site.org_id, role: "org_member" }] }),
      staffHeaders("u6", { site: [{ site_id: site.id, role: "site_editor" }] }),
      staffHeaders("u7", { org: [{ org_id: newId(), role: "org_owner" }] }),
      staffHeaders("u8", { site: [{ site_id: newId(), role: "site_owner" }] }),
      {
        ...staffHeaders("u9", { org: [{ org_id: site.org_id, role: "org_owner" }] }),
        "x-session-kind": "reader",
      },
    ];
    for (const headers of denied) {
      for (const [method, path, body] of [
        ["GET", webhooksPath(site.id), undefined],
        ["POST", webhooksPath(site.id), { url: inbox().url, events: EVENTS }],
        ["DELETE", `${webhooksPath(site.id)}/${hook.id}`, undefined],
        ["POST", `${webhooksPath(site.id)}/${hook.id}/rotate-secret`, undefined],
        ["GET", `${webhooksPath(site.id)}/${hook.id}/deliveries`, undefined],
      ] as const) {
        const res = await call(method, path, { headers, body });
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(await res.text()).toBe(missingBody);
      }
    }
    // Nothing the denied callers tried took effect.
    const list = (await (
      await call("GET", webhooksPath(site.id), { headers: ownerHeaders(site) })
    ).json()) as {
      items: { id: string; secret_rotated_at: string | null }[];
    };
    expect(list.items).toEqual([expect.objectContaining({ id: hook.id, secret_rotated_at: null })]);
  });

  it("a deleted or archived site answers its own owner like a missing one", async () => {
    const missing = await call("GET", webhooksPath(newId()), { headers: ownerHeaders(await makeSite()) });
    const missingBody = await missing.text();
    for (const status of ["deleted", "archived"]) {
      const site = await makeSite();
      await content.syncSite({ ...site, status, updated_at: new Date(Date.now() + 1000).toISOString() });
      const res = await call("GET", webhooksPath(site.id), { headers: ownerHeaders(site) });
      expect(res.status).toBe(404);
      expect(await res.text()).toBe(missingBody);
    }
  });
});

describe("tenant wall", () => {
  it("another site's webhook id answers exactly like a missing one, and stays untouched", async () => {
    const a = await makeSite();
    const b = await makeSite();
    const hookB = await createWebhook(b, { url: inbox().url });
    const ghost = newId();
    for (const [method, suffix] of [
      ["DELETE", ""],
      ["POST", "/rotate-secret"],
      ["GET", "/deliveries"],
    ] as const) {
      const foreign = await call(method, `${webhooksPath(a.id)}/${hookB.id}${suffix}`, {
        headers: ownerHeaders(a),
      });
      const nothing = await call(method, `${webhooksPath(a.id)}/${ghost}${suffix}`, {
        headers: ownerHeaders(a),
      });
      const notAnId = await call(method, `${webhooksPath(a.id)}/not-an-id${suffix}`, {
        headers: ownerHeaders(a),
      });
      expect(foreign.status, `${method} ${suffix}`).toBe(404);
      const body = await foreign.text();
      expect(body).toBe(await nothing.text());
      expect(body).toBe(await notAnId.text());
    }
    const listA = (await (await call("GET", webhooksPath(a.id), { headers: ownerHeaders(a) })).json()) as {
      items: unknown[];
    };
    expect(listA.items).toEqual([]);
    const listB = (await (await call("GET", webhooksPath(b.id), { headers: ownerHeaders(b) })).json()) as {
      items: { id: string; secret_rotated_at: string | null }[];
    };
    expect(listB.items).toEqual([expect.objectContaining({ id: hookB.id, secret_rotated_at: null })]);
  });
});

describe("DELETE and rotate-secret", () => {
  it("delete removes the webhook and its delivery log; a second delete is 404", async () => {
    const site = await makeSite();
    const hook = await createWebhook(site, { url: inbox().url });
    await (await contentDbOf(site.id))
      .prepare(
        `INSERT INTO webhook_deliveries (id, webhook_id, site_id, event_id, event_type, body, status, created_at)
       VALUES (?, ?, ?, ?, 'post.published', '{}', 'delivered', ?)`,
      )
      .bind(newId(), hook.id, site.id, newId(), new Date().toISOString())
      .run();
    const del = await call("DELETE", `${webhooksPath(site.id)}/${hook.id}`, { headers: ownerHeaders(site) });
    expect(del.status).toBe(204);
    const left = await (await contentDbOf(site.id))
      .prepare("SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = ?")
      .bind(hook.id)
      .first<{ n: number }>();
    expect(left!.n).toBe(0);
    const again = await call("DELETE", `${webhooksPath(site.id)}/${hook.id}`, {
      headers: ownerHeaders(site),
    });
    expect(again.status).toBe(404);
  });

  it("rotation answers a new secret once and records when", async () => {
    const site = await makeSite();
    const hook = await createWebhook(site, { url: inbox().url });
    const res = await call("POST", `${webhooksPath(site.id)}/${hook.id}/rotate-secret`, {
      headers: ownerHeaders(site),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const rotated = (await res.json()) as { id: string; secret: string; secret_rotated_at: string };
    expect(rotated.id).toBe(hook.id);
    expect(rotated.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(rotated.secret).not.toBe(hook.secret);
    const list = (await (
      await call("GET", webhooksPath(site.id), { headers: ownerHeaders(site) })
    ).json()) as {
      items: { secret_rotated_at: string }[];
    };
    expect(list.items[0]!.secret_rotated_at).toBe(rotated.secret_rotated_at);
  });
});

describe("GET /api/v1/sites/{site_id}/webhooks/{id}/deliveries", () => {
  it("pages newest first with next_cursor; limit 1..100, else 400; a corrupt cursor is 400", async () => {
    const site = await makeSite();
    const hook = await createWebhook(site, { url: inbox().url });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const id = newId();
      ids.push(id);
      await (await contentDbOf(site.id))
        .prepare(
          `INSERT INTO webhook_deliveries (id, webhook_id, site_id, event_id, event_type, body, status, created_at)
         VALUES (?, ?, ?, ?, 'post.updated', '{}', 'pending', ?)`,
        )
        .bind(id, hook.id, site.id, newId(), new Date().toISOString())
        .run();
    }
    const path = `${webhooksPath(site.id)}/${hook.id}/deliveries`;
    const first = (await (await call("GET", `${path}?limit=2`, { headers: ownerHeaders(site) })).json()) as {
      items: { id: string; attempt_log: unknown[] }[];
      next_cursor: string | null;
    };
    expect(first.items.map((d) => d.id)).toEqual([ids[2], ids[1]]);
    expect(first.items[0]!.attempt_log).toEqual([]);
    expect(first.next_cursor).toBe(ids[1]);
    const second = (await (
      await call("GET", `${path}?limit=2&cursor=${first.next_cursor}`, { headers: ownerHeaders(site) })
    ).json()) as { items: { id: string }[]; next_cursor: string | null };
    expect(second.items.map((d) => d.id)).toEqual([ids[0]]);
    expect(second.next_cursor).toBeNull();
    for (const limit of ["1", "100"]) {
      expect((await call("GET", `${path}?limit=${limit}`, { headers: ownerHeaders(site) })).status).toBe(200);
    }
    for (const limit of ["0", "101", "x", "-1"]) {
      const res = await call("GET", `${path}?limit=${limit}`, { headers: ownerHeaders(site) });
      expect(res.status, limit).toBe(400);
      expect((await problem(res)).code).toBe("INVALID_LIMIT");
    }
    const bad = await call("GET", `${path}?cursor=nope`, { headers: ownerHeaders(site) });
    expect(bad.status).toBe(400);
    expect((await problem(bad)).code).toBe("INVALID_CURSOR");
  });
});

describe("delivery log retention", () => {
  it("the hourly cron drops settled deliveries older than 30 days and keeps pending and recent ones", async () => {
    const site = await makeSite();
    const hook = await createWebhook(site, { url: inbox().url });
    const old = new Date(Date.now() - 31 * 86_400_000).toISOString();
    const recent = new Date(Date.now() - 29 * 86_400_000).toISOString();
    const rows = [
      ["old-delivered", "delivered", old],
      ["old-failed", "failed", old],
      ["old-pending", "pending", old],
      ["recent-delivered", "delivered", recent],
    ] as const;
    for (const [eventId, status, at] of rows) {
      await (await contentDbOf(site.id))
        .prepare(
          `INSERT INTO webhook_deliveries (id, webhook_id, site_id, event_id, event_type, body, status, created_at)
         VALUES (?, ?, ?, ?, 'post.updated', '{}', ?, ?)`,
        )
        .bind(newId(), hook.id, site.id, eventId, status, at)
        .run();
    }
    await content.scheduled({ cron: "30 * * * *" });
    const { results } = await (await contentDbOf(site.id))
      .prepare("SELECT event_id FROM webhook_deliveries WHERE webhook_id = ? ORDER BY event_id")
      .bind(hook.id)
      .all<{ event_id: string }>();
    expect(results.map((r) => r.event_id)).toEqual(["old-pending", "recent-delivered"]);
  });
});

describe("OpenAPI", () => {
  it("content's document has the webhook routes and the six events (OpenAPI 3.1 webhooks)", async () => {
    const doc = (await (await call("GET", "/openapi.json")).json()) as {
      paths: Record<string, Record<string, unknown>>;
      webhooks: Record<string, { post: { requestBody: unknown; parameters: { name: string }[] } }>;
    };
    const base = "/api/v1/sites/{site_id}/webhooks";
    expect(Object.keys(doc.paths[base]!).sort()).toEqual(["get", "post"]);
    expect(Object.keys(doc.paths[`${base}/{id}`]!)).toEqual(["delete"]);
    expect(Object.keys(doc.paths[`${base}/{id}/rotate-secret`]!)).toEqual(["post"]);
    expect(Object.keys(doc.paths[`${base}/{id}/deliveries`]!)).toEqual(["get"]);
    expect(Object.keys(doc.paths[`${base}/{id}/test`]!)).toEqual(["post"]);
    expect(Object.keys(doc.webhooks).sort()).toEqual(EVENTS.slice().sort());
    expect(doc.webhooks["post.published"]!.post.parameters.map((p) => p.name).sort()).toEqual([
      "webhook-id",
      "webhook-signature",
      "webhook-timestamp",
    ]);
  });
});
