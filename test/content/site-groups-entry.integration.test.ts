/**
 * Site groups at content's entry points other than HTTP (docs/decisions/site-groups.md, issue 38): the RPC
 * methods route by the site their input names (`syncSite` places a site first), the queue consumers by each
 * message's site (one pass per group of a batch; `account.deleted` visits every group), the crons and the
 * metrics visit every group. Two sites in different groups each time: a call that ran on one fixed group
 * would miss the other site's rows.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { newId } from "../../src/lib/ids";
import type { SiteProjection } from "../../src/lib/rpc";
import {
  contentDirectory,
  contentGroupDb,
  contentGroupOf,
  contentGroups,
  otherContentDbs,
} from "../support/content-groups";
import { call, content, createKey, createPost, makeSite, ownerHeaders } from "../support/content-helpers";

afterEach(() => {
  vi.restoreAllMocks();
});

/** The directory's count of sites per configured group. */
async function siteCounts(): Promise<Map<string, number>> {
  const { results } = await contentDirectory
    .prepare("SELECT group_name, count(*) AS n FROM site_groups GROUP BY group_name")
    .all<{ group_name: string; n: number }>();
  const counts = new Map([...contentGroups.keys()].map((g) => [g, 0]));
  for (const r of results) counts.set(r.group_name, r.n);
  return counts;
}

/** The group holding the fewest sites (ties to the lowest name): where the next new site goes. */
function emptiest(counts: Map<string, number>): string {
  return [...counts].sort(([a, n], [b, m]) => n - m || a.localeCompare(b))[0]![0];
}

/**
 * Sites made until two of them are in different groups, each placement checked against the rule (the
 * emptiest group). Answers [a site of the first group, a site of the second].
 */
async function sitesInTwoGroups(
  overrides: Partial<SiteProjection> = {},
): Promise<[SiteProjection, SiteProjection]> {
  const byGroup = new Map<string, SiteProjection>();
  for (let i = 0; i < 40 && byGroup.size < 2; i++) {
    const expected = emptiest(await siteCounts());
    const site = await makeSite(overrides);
    expect(await contentGroupOf(site.id)).toBe(expected);
    if (!byGroup.has(expected)) byGroup.set(expected, site);
  }
  expect(byGroup.size).toBe(2);
  const [a, b] = [...byGroup.values()];
  return [a!, b!];
}

/** The site's row in its group's `sites` table, and whether any other group has one. */
async function siteRows(siteId: string) {
  const db = contentGroupDb(await contentGroupOf(siteId));
  const own = await db.prepare("SELECT slug FROM sites WHERE id = ?").bind(siteId).first<{ slug: string }>();
  let elsewhere = 0;
  for (const other of await otherContentDbs(siteId)) {
    const row = await other
      .prepare("SELECT count(*) AS n FROM sites WHERE id = ?")
      .bind(siteId)
      .first<{ n: number }>();
    elsewhere += row!.n;
  }
  return { own, elsewhere };
}

async function dbOf(siteId: string) {
  return contentGroupDb(await contentGroupOf(siteId));
}

describe("syncSite: placement", () => {
  it("places each new site in the group holding the fewest sites, and writes it there only", async () => {
    const [a, b] = await sitesInTwoGroups();
    expect(await contentGroupOf(a.id)).not.toBe(await contentGroupOf(b.id));
    for (const site of [a, b]) {
      const rows = await siteRows(site.id);
      expect(rows.own?.slug).toBe(site.slug);
      expect(rows.elsewhere).toBe(0);
    }
  });

  it("a later push keeps the site's group and updates its slug, in the directory and in the group", async () => {
    const [a] = await sitesInTwoGroups();
    const group = await contentGroupOf(a.id);
    // Make the site's own group the fullest by far: a push that placed it again would move it.
    const fillers = Array.from({ length: 3 }, () => newId());
    await contentDirectory.batch(
      fillers.map((id) =>
        contentDirectory
          .prepare(
            "INSERT INTO site_groups (site_id, slug, group_name, placed_at, updated_at) VALUES (?, ?, ?, ?, ?)",
          )
          .bind(id, `filler-${id.toLowerCase()}`, group, new Date().toISOString(), new Date().toISOString()),
      ),
    );
    try {
      const renamed = {
        ...a,
        slug: `renamed-${a.id.slice(-8).toLowerCase()}`,
        updated_at: new Date().toISOString(),
      };
      await content.syncSite(renamed);
      expect(await contentGroupOf(a.id)).toBe(group);
      const dir = await contentDirectory
        .prepare("SELECT slug FROM site_groups WHERE site_id = ?")
        .bind(a.id)
        .first<{ slug: string }>();
      expect(dir?.slug).toBe(renamed.slug);
      const rows = await siteRows(a.id);
      expect(rows.own?.slug).toBe(renamed.slug);
      expect(rows.elsewhere).toBe(0);
    } finally {
      await contentDirectory.batch(
        fillers.map((id) => contentDirectory.prepare("DELETE FROM site_groups WHERE site_id = ?").bind(id)),
      );
    }
  });
});

describe("RPC calls naming many sites", () => {
  it("healthFacts answers the sites of both groups, in the input's order, once each", async () => {
    const [a, b] = await sitesInTwoGroups();
    const key = await createKey(a);
    await createPost(key.key, { title: "Live", status: "published" });
    const unknown = newId();
    const facts = await content.healthFacts([b.id, unknown, a.id, b.id]);
    expect(facts).toEqual([
      { site_id: b.id, has_published: false, has_legal_pages: false },
      { site_id: unknown, has_published: false, has_legal_pages: false },
      { site_id: a.id, has_published: true, has_legal_pages: false },
    ]);
    // And with the sites the other way round (the published one in the other group).
    const keyB = await createKey(b);
    await createPost(keyB.key, { title: "Live too", status: "published" });
    const again = await content.healthFacts([a.id, b.id]);
    expect(again.map((f) => [f.site_id, f.has_published])).toEqual([
      [a.id, true],
      [b.id, true],
    ]);
  });

  it("siteIntegrations counts each site's keys in its own group, in the input's order", async () => {
    const [a, b] = await sitesInTwoGroups();
    await createKey(a);
    await createKey(b);
    await createKey(b, { name: "second" });
    const unknown = newId();
    const answer = await content.siteIntegrations([b.id, unknown, a.id, b.id]);
    expect(answer).toEqual([
      { site_id: b.id, api_keys: 2, webhooks: 0 },
      { site_id: unknown, api_keys: 0, webhooks: 0 },
      { site_id: a.id, api_keys: 1, webhooks: 0 },
      { site_id: b.id, api_keys: 2, webhooks: 0 },
    ]);
  });

  it("an organization's grant ending revokes the person's keys in every group; a site's ending only on its site", async () => {
    const org = newId();
    const [a, b] = await sitesInTwoGroups({ org_id: org });
    const user = `user-${newId()}`;
    const keyOf = async (site: SiteProjection) => {
      const res = await call("POST", `/api/v1/sites/${site.id}/api-keys`, {
        headers: ownerHeaders(site, user),
        body: { name: "mine", kind: "secret", scopes: ["posts:read"] },
      });
      expect(res.status).toBe(201);
      return ((await res.json()) as { id: string }).id;
    };
    const [ka, kb] = [await keyOf(a), await keyOf(b)];
    const ended_at = new Date(Date.now() + 1000).toISOString();
    const site = await content.endMemberGrants({
      user_id: user,
      scope: "site",
      org_id: null,
      site_id: b.id,
      except_site_ids: [],
      ended_at,
    });
    expect(site.api_keys.map((k) => k.id)).toEqual([kb]);
    const whole = await content.endMemberGrants({
      user_id: user,
      scope: "org",
      org_id: org,
      site_id: null,
      except_site_ids: [],
      ended_at,
    });
    expect(whole.api_keys.map((k) => k.id)).toEqual([ka]);
    for (const [s, id] of [
      [a, ka],
      [b, kb],
    ] as const) {
      const row = await (await dbOf(s.id))
        .prepare("SELECT revoked_at FROM api_keys WHERE id = ?")
        .bind(id)
        .first<{ revoked_at: string | null }>();
      expect(row?.revoked_at).not.toBeNull();
    }
    // An unknown site's ending ends nothing (and fails nothing).
    expect(
      await content.endMemberGrants({
        user_id: user,
        scope: "site",
        org_id: null,
        site_id: newId(),
        except_site_ids: [],
        ended_at,
      }),
    ).toEqual({ api_keys: [], webhooks: [] });
  });

  it("stalledConvergence reports the stalled sites of both groups", async () => {
    // Pushed first 30 minutes ago (a push older than the row's is ignored).
    const [a, b] = await sitesInTwoGroups({ updated_at: new Date(Date.now() - 30 * 60_000).toISOString() });
    for (const site of [a, b]) {
      await createKey(site);
      // Sites pushed a new owner 20 minutes ago; the site.transferred message never arrived.
      await content.syncSite({
        ...site,
        org_id: newId(),
        updated_at: new Date(Date.now() - 20 * 60_000).toISOString(),
      });
    }
    const stalled = (await content.stalledConvergence()).map((s) => s.site_id);
    expect(stalled).toContain(a.id);
    expect(stalled).toContain(b.id);
  });

  it("RPC writes by site id run on the site's group; an unknown site is refused or empty", async () => {
    const [a, b] = await sitesInTwoGroups();
    for (const s of [a, b]) {
      expect(
        await content.definePostType({ site_id: s.id, slug: "event", name: "Events", public: true }),
      ).toEqual({
        ok: true,
      });
      const row = await (await dbOf(s.id))
        .prepare("SELECT name FROM post_types WHERE site_id = ? AND slug = 'event'")
        .bind(s.id)
        .first<{ name: string }>();
      expect(row?.name).toBe("Events");
      for (const other of await otherContentDbs(s.id)) {
        const stray = await other
          .prepare("SELECT count(*) AS n FROM post_types WHERE site_id = ?")
          .bind(s.id)
          .first<{ n: number }>();
        expect(stray!.n).toBe(0);
      }
    }
    expect(await content.removePostType({ site_id: b.id, slug: "event" })).toEqual({
      ok: true,
      removed: true,
    });
    const unknown = newId();
    const refused = await content.definePostType({
      site_id: unknown,
      slug: "event",
      name: "Events",
      public: true,
    });
    expect(refused.ok).toBe(false);
    expect(await content.removePostType({ site_id: unknown, slug: "event" })).toEqual({
      ok: true,
      removed: false,
    });
    expect(await content.legalPages({ site_id: unknown })).toEqual([]);
    expect(
      await content.ingestImage({ site_id: unknown, url: "https://img.example.test/a.png", purpose: "x" }),
    ).toEqual({
      status: "pending",
      reason: "site_not_synced",
    });
  });
});

function consoleLines(method: "info" | "warn" | "error") {
  const spy = vi.spyOn(console, method).mockImplementation(() => {});
  return () => spy.mock.calls.map((args) => JSON.parse(String(args[0])) as Record<string, unknown>);
}

describe("crons over every group", () => {
  it("publishes the due posts of both groups, and the log line sums them", async () => {
    const [a, b] = await sitesInTwoGroups();
    const due: { site: SiteProjection; id: string }[] = [];
    for (const site of [a, b]) {
      const key = await createKey(site);
      const post = await createPost(key.key, {
        title: "Later",
        status: "scheduled",
        published_at: "2099-01-01T00:00:00Z",
      });
      await (await dbOf(site.id))
        .prepare("UPDATE posts SET published_at = ? WHERE id = ?")
        .bind(new Date(Date.now() - 60_000).toISOString(), post.id)
        .run();
      due.push({ site, id: post.id });
    }
    const info = consoleLines("info");
    await content.scheduled({ cron: "* * * * *" });
    for (const { site, id } of due) {
      const row = await (await dbOf(site.id))
        .prepare("SELECT status FROM posts WHERE id = ?")
        .bind(id)
        .first<{ status: string }>();
      expect(row?.status).toBe("published");
    }
    const done = info().find((l) => l.event === "cron_done");
    expect(done).toMatchObject({ cron: "* * * * *" });
    expect(done!.published).toBeGreaterThanOrEqual(2);
  });

  it("the hourly run purges raw analytics in every group, and the log line sums the groups' counts", async () => {
    const day = (n: number) =>
      `19${String(10 + (n % 80)).padStart(2, "0")}-01-${String(1 + (n % 28)).padStart(2, "0")}`;
    const base = Math.floor(Math.random() * 1_000_000);
    const planted = new Map<string, string[]>();
    let n = 0;
    for (const [group, db] of contentGroups) {
      // Two old salts in the first group, three in the second: a sum of one group's counts shows.
      const days = Array.from({ length: 2 + planted.size }, () => day(base + n++ * 7919));
      for (const d of days) {
        await db
          .prepare("INSERT OR IGNORE INTO analytics_salts (day, salt, created_at) VALUES (?, 'x', ?)")
          .bind(d, new Date().toISOString())
          .run();
      }
      planted.set(group, days);
    }
    const info = consoleLines("info");
    await content.scheduled({ cron: "30 * * * *" });
    for (const [group, days] of planted) {
      for (const d of days) {
        const left = await contentGroupDb(group)
          .prepare("SELECT count(*) AS n FROM analytics_salts WHERE day = ?")
          .bind(d)
          .first<{ n: number }>();
        expect(left!.n).toBe(0);
      }
    }
    const done = info().find((l) => l.event === "cron_done");
    const plantedTotal = [...planted.values()].reduce((s, d) => s + new Set(d).size, 0);
    expect(done!.analytics_salts_purged).toBeGreaterThanOrEqual(plantedTotal);
  });
});

/**
 * A batch handed to the worker's queue handler over its entrypoint, as the platform hands it one; each
 * message's ack or retry is recorded (the worker calls them back over RPC).
 */
async function queue(name: string, bodies: { id: string; body: unknown }[]) {
  const acked: string[] = [];
  const retried: string[] = [];
  const messages = bodies.map((m) => ({
    id: m.id,
    timestamp: new Date(),
    attempts: 1,
    body: m.body,
    ack: () => {
      acked.push(m.id);
    },
    retry: () => {
      retried.push(m.id);
    },
  }));
  const batch = { queue: name, messages, ackAll: () => {}, retryAll: () => {} };
  await (content as unknown as { queue(b: unknown): Promise<void> }).queue(batch);
  // The callbacks reach this side as RPC calls: wait until every message was answered.
  for (let i = 0; i < 50 && acked.length + retried.length < bodies.length; i++) {
    await new Promise((r) => setTimeout(r, 20));
  }
  return { acked: acked.sort(), retried };
}

describe("queues route by site_id", () => {
  it("one media-variants batch with messages of both groups finishes the assets of both; unknown and malformed are acked", async () => {
    const [a, b] = await sitesInTwoGroups();
    const media: { site: SiteProjection; id: string }[] = [];
    for (const site of [a, b]) {
      const id = newId();
      // A processing asset whose original is not in R2: the consumer records it failed (original_missing).
      await (await dbOf(site.id))
        .prepare(
          `INSERT INTO media (id, site_id, r2_key, content_type, size_bytes, status, created_at)
           VALUES (?, ?, ?, 'image/png', 10, 'processing', ?)`,
        )
        .bind(id, site.id, `sites/${site.id}/${id}.png`, new Date().toISOString())
        .run();
      media.push({ site, id });
    }
    const result = await queue("media-variants", [
      { id: "m-a", body: { media_id: media[0]!.id, site_id: a.id } },
      { id: "m-unknown", body: { media_id: newId(), site_id: newId() } },
      { id: "m-b", body: { media_id: media[1]!.id, site_id: b.id } },
      { id: "m-malformed", body: { media_id: 7 } },
    ]);
    expect(result.retried).toEqual([]);
    expect(result.acked).toEqual(["m-a", "m-b", "m-malformed", "m-unknown"]);
    for (const { site, id } of media) {
      const row = await (await dbOf(site.id))
        .prepare("SELECT status FROM media WHERE id = ?")
        .bind(id)
        .first<{ status: string }>();
      expect(row?.status).not.toBe("processing");
    }
  });

  it("account.deleted reaches the person's personas in both groups", async () => {
    const [a, b] = await sitesInTwoGroups();
    const user = `user-${newId()}`;
    for (const site of [a, b]) {
      await (await dbOf(site.id))
        .prepare(
          "INSERT INTO author_personas (site_id, slug, display_name, user_id, created_at) VALUES (?, 'ana', 'Ana', ?, ?)",
        )
        .bind(site.id, user, new Date().toISOString())
        .run();
    }
    const result = await queue("site-transferred", [
      { id: "gone", body: { type: "account.deleted", user_id: user, at: new Date().toISOString() } },
    ]);
    expect(result).toEqual({ acked: ["gone"], retried: [] });
    for (const site of [a, b]) {
      const row = await (await dbOf(site.id))
        .prepare("SELECT display_name FROM author_personas WHERE site_id = ? AND user_id = ?")
        .bind(site.id, user)
        .first<{ display_name: string }>();
      expect(row?.display_name).toBe("Former author");
    }
  });

  it("site.transferred messages of both groups in one batch restamp each site in its group", async () => {
    const [a, b] = await sitesInTwoGroups();
    const to = newId();
    const keys = [await createKey(a), await createKey(b)];
    const message = (site: SiteProjection) => ({
      type: "site.transferred",
      transfer_id: newId(),
      site_id: site.id,
      from_org_id: site.org_id,
      to_org_id: to,
      mode: "transfer",
      at: new Date().toISOString(),
    });
    const result = await queue("site-transferred", [
      { id: "t-a", body: message(a) },
      { id: "t-b", body: message(b) },
    ]);
    expect(result).toEqual({ acked: ["t-a", "t-b"], retried: [] });
    for (const [i, site] of [a, b].entries()) {
      const row = await (await dbOf(site.id))
        .prepare("SELECT org_id FROM api_keys WHERE id = ?")
        .bind(keys[i]!.id)
        .first<{ org_id: string }>();
      expect(row?.org_id).toBe(to);
    }
  });
});

describe("metrics over every group", () => {
  it("/metrics sums the outbox gauges of both groups", async () => {
    const [a, b] = await sitesInTwoGroups();
    const givenUp = async () => {
      const res = await call("GET", "/metrics");
      const text = await res.text();
      const line = text.split("\n").find((l) => l.startsWith('content_effects_given_up{kind="indexnow"}'));
      return Number(line?.split(" ").pop());
    };
    const before = await givenUp();
    for (const site of [a, b]) {
      await (await dbOf(site.id))
        .prepare(
          `INSERT INTO post_effects (id, site_id, post_id, kind, payload_json, created_at, attempts, gave_up_at)
           VALUES (?, ?, ?, 'indexnow', '{}', ?, 8, ?)`,
        )
        .bind(newId(), site.id, newId(), new Date().toISOString(), new Date().toISOString())
        .run();
    }
    expect((await givenUp()) - before).toBe(2);
  });
});
