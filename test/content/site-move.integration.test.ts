/**
 * Moving a site between content groups (issue 38, docs/decisions/site-groups.md "Moving a site"): the
 * SiteMover copies every row of the site to the target group, switches the directory, fences the old group
 * and deletes the old rows; stopped at every step (and dying inside one) it resumes to the same end; it rolls
 * back on the operator's word or when the target refuses; the site's writes answer 503 SITE_MOVING with
 * Retry-After while it moves, and none is lost (50 concurrent writers).
 */
import { env } from "cloudflare:workers";
import { getTableColumns } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { SITE_TABLES, type SiteTable } from "../../src/content/groups/move-store";
import type { SiteMover } from "../../src/content/groups/mover-do";
import { newId } from "../../src/lib/ids";
import type { SiteMoveProgress } from "../../src/lib/rpc";
import { contentDirectory, contentGroupDb, contentGroupOf, contentGroups } from "../support/content-groups";
import {
  call,
  content,
  createKey,
  createPost,
  makeSite,
  paragraph,
  problem,
  seedMedia,
  tenant,
} from "../support/content-helpers";

const movers = (env as unknown as { SITE_MOVER: DurableObjectNamespace<SiteMover> }).SITE_MOVER;
const mover = (siteId: string) => movers.get(movers.idFromName(siteId));

const ALL_STEPS = 100_000;

function otherGroup(group: string): string {
  const other = [...contentGroups.keys()].find((g) => g !== group);
  if (!other) throw new Error("no second group");
  return other;
}

async function directoryRow(siteId: string) {
  return contentDirectory
    .prepare("SELECT group_name, version, moving_to FROM site_groups WHERE site_id = ?")
    .bind(siteId)
    .first<{ group_name: string; version: number; moving_to: string | null }>();
}

async function fenceOf(db: D1Database, siteId: string) {
  return db
    .prepare("SELECT state, other_group, purging FROM site_fences WHERE site_id = ?")
    .bind(siteId)
    .first<{ state: string; other_group: string; purging: number }>();
}

/** Every row of the site in `db`, table by table, each as sorted JSON (the content version left out). */
async function snapshot(db: D1Database, siteId: string): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const t of SITE_TABLES) {
    const columns = Object.values(getTableColumns(t.table))
      .map((c) => c.name)
      .filter((c) => !(t.name === "sites" && c === "content_version"));
    const { results } = await db
      .prepare(
        `SELECT json_object(${columns.map((c) => `'${c}', ${c}`).join(", ")}) AS j FROM ${t.name} WHERE ${t.where}`,
      )
      .bind(siteId)
      .all<{ j: string }>();
    out[t.name] = results.map((r) => r.j).sort();
  }
  return out;
}

async function rowCount(db: D1Database, t: SiteTable, siteId: string): Promise<number> {
  const row = await db
    .prepare(`SELECT count(*) AS n FROM ${t.name} WHERE ${t.where}`)
    .bind(siteId)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

async function siteRowsIn(db: D1Database, siteId: string): Promise<number> {
  let n = 0;
  for (const t of SITE_TABLES) n += await rowCount(db, t, siteId);
  return n;
}

/** Search rows (both FTS5 tables) of posts that are no longer there: a copy or delete that broke them. */
async function orphanSearchRows(db: D1Database): Promise<number> {
  const row = await db
    .prepare(
      `SELECT (SELECT count(*) FROM posts_search WHERE rowid NOT IN (SELECT rowid FROM posts))
        + (SELECT count(*) FROM posts_fts WHERE rowid NOT IN (SELECT rowid FROM posts)) AS n`,
    )
    .first<{ n: number }>();
  return row?.n ?? 0;
}

async function searchHits(db: D1Database, siteId: string, word: string): Promise<number> {
  const row = await db
    .prepare(
      `SELECT count(*) AS n FROM posts_search s JOIN posts p ON p.rowid = s.rowid
        WHERE posts_search MATCH ?1 AND p.site_id = ?2`,
    )
    .bind(word, siteId)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

/** A site with posts (one with a featured image), media, keys and a webhook, and a row in every other table. */
async function populatedSite() {
  const t = await tenant();
  const siteId = t.site.id;
  const db = contentGroupDb(await contentGroupOf(siteId));
  const mediaId = await seedMedia(siteId);
  const posts = [];
  for (let i = 0; i < 3; i++) {
    posts.push(
      await createPost(t.ck, {
        title: `Moving post ${i} zebrafish`,
        slug: `moving-${i}`,
        status: "published",
        ...(i === 0 ? { featured_image_id: mediaId } : {}),
        blocks_json: paragraph(`body ${i} of the moving site`),
      }),
    );
  }
  // A second revision of the first post.
  const edited = await call("PATCH", `/v1/posts/${posts[0]!.id}`, {
    key: t.ck,
    body: { title: "Edited zebrafish" },
  });
  expect(edited.status).toBe(200);
  const now = new Date().toISOString();
  const formId = newId();
  const day = now.slice(0, 10);
  const seeds: [string, ...unknown[]][] = [
    // A webhook row (made here, not through the API: a post event fanned out to it later would add a delivery
    // while the test compares the rows).
    [
      "INSERT INTO webhooks (id, site_id, url, events_json, secret_encrypted, created_at) VALUES (?, ?, 'https://hooks.test/move', '[\"post.published\"]', 'sealed', ?)",
      newId(),
      siteId,
      now,
    ],
    ["INSERT INTO media_tags (media_id, tag_id) VALUES (?, 'tag-a')", mediaId],
    ["INSERT INTO forms_app_state (site_id, enabled, updated_at) VALUES (?, 1, ?)", siteId, now],
    [
      "INSERT INTO forms (id, site_id, name, fields_json, created_by, created_at) VALUES (?, ?, 'Contact', '[]', 'u', ?)",
      formId,
      siteId,
      now,
    ],
    ["INSERT INTO form_token_uses (token_id, form_id, expires_at) VALUES (?, ?, ?)", newId(), formId, now],
    [
      "INSERT INTO leads (id, site_id, form_id, status, fields_json, content_hash, created_at) VALUES (?, ?, ?, 'clean', '{}', 'h', ?)",
      newId(),
      siteId,
      formId,
      now,
    ],
    [
      "INSERT INTO taxonomy_terms (site_id, kind, slug, name, created_at, updated_at) VALUES (?, 'tag', 'fish', 'Fish', ?, ?)",
      siteId,
      now,
      now,
    ],
    [
      "INSERT INTO author_personas (site_id, slug, display_name, user_id, created_at) VALUES (?, 'ana', 'Ana', 'u-ana', ?)",
      siteId,
      now,
    ],
    [
      "INSERT INTO preview_links (id, token_hash, site_id, post_id, org_id, key_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      newId(),
      `hash-${newId()}`,
      siteId,
      posts[1]!.id,
      t.site.org_id,
      t.secretKey.id,
      now,
      now,
    ],
    [
      "INSERT INTO idempotency_records (key_id, idempotency_key, request_hash, status, response_json, created_at, expires_at) VALUES (?, 'k1', 'h', 201, '{}', ?, ?)",
      t.secretKey.id,
      now,
      now,
    ],
    [
      "INSERT INTO idempotency_records (key_id, idempotency_key, request_hash, status, response_json, created_at, expires_at) VALUES (?, 'k2', 'h', 201, '{}', ?, ?)",
      `person:u-ana:${siteId}`,
      now,
      now,
    ],
    [
      // An agent's record names no key of the site: only its site_id (migration 0024).
      "INSERT INTO idempotency_records (key_id, idempotency_key, request_hash, status, response_json, created_at, expires_at, site_id) VALUES (?, 'k3', 'h', 201, '{}', ?, ?, ?)",
      `agent:${newId()}`,
      now,
      now,
      siteId,
    ],
    [
      "INSERT INTO import_lines (site_id, line_hash, post_id, created_at) VALUES (?, 'lh', ?, ?)",
      siteId,
      posts[2]!.id,
      now,
    ],
    [
      "INSERT INTO audit_events (id, site_id, actor_type, actor_id, action, outcome, resource_type, created_at) VALUES (?, ?, 'person', 'u', 'lead.read', 'ok', 'lead', ?)",
      newId(),
      siteId,
      now,
    ],
    ["INSERT INTO analytics_visitors (site_id, day, visitor_id, path) VALUES (?, ?, 'v1', '/')", siteId, day],
    ["INSERT INTO analytics_daily (site_id, day, views, visitors) VALUES (?, ?, 5, 2)", siteId, day],
    [
      "INSERT INTO analytics_paths_daily (site_id, day, path, views, visitors) VALUES (?, ?, '/', 5, 2)",
      siteId,
      day,
    ],
    [
      "INSERT INTO analytics_referrers_daily (site_id, day, referrer_host, views) VALUES (?, ?, 'ref.test', 1)",
      siteId,
      day,
    ],
    [
      "INSERT INTO ended_member_grants (user_id, scope, site_id, ended_at, recorded_at) VALUES ('u-gone', 'site', ?, ?, ?)",
      siteId,
      now,
      now,
    ],
    [
      "INSERT INTO site_transfers (site_id, transfer_id, from_org_id, to_org_id, transferred_at, applied_at) VALUES (?, 'tr', ?, ?, '2000-01-01T00:00:00.000Z', ?)",
      siteId,
      t.site.org_id,
      t.site.org_id,
      now,
    ],
    [
      "INSERT INTO webhook_deliveries (id, webhook_id, site_id, event_id, event_type, body, status, created_at) SELECT ?, id, site_id, 'ev1', 'post.published', '{}', 'delivered', ? FROM webhooks WHERE site_id = ?",
      newId(),
      now,
      siteId,
    ],
    [
      "INSERT INTO post_effects (id, site_id, post_id, kind, payload_json, created_at, next_attempt_at) VALUES (?, ?, ?, 'indexnow', '{}', ?, '2999-01-01T00:00:00.000Z')",
      newId(),
      siteId,
      posts[0]!.id,
      now,
    ],
    [
      "INSERT INTO outbound_effects (id, kind, site_id, payload_json, created_at) VALUES (?, 'cache_purge', ?, '{}', ?)",
      newId(),
      siteId,
      now,
    ],
  ];
  for (const [sql, ...params] of seeds)
    await db
      .prepare(sql)
      .bind(...params)
      .run();
  await settled(db, siteId);
  return { ...t, posts, mediaId, db };
}

/** Waits until the site's rows stop changing (the events queue records each post event in the dev outbox). */
async function settled(db: D1Database, siteId: string): Promise<void> {
  let last = -1;
  for (let same = 0; same < 3; ) {
    const n = await siteRowsIn(db, siteId);
    same = n === last ? same + 1 : 0;
    last = n;
    await new Promise((r) => setTimeout(r, 150));
  }
}

async function expectReadable(key: string, postId: string, title: string) {
  const res = await call("GET", `/v1/posts/${postId}`, { key });
  expect(res.status, await res.clone().text()).toBe(200);
  expect(((await res.json()) as { title: string }).title).toBe(title);
}

const refusals: string[] = [];
afterAll(async () => {
  for (const sql of refusals) await contentGroupDb(sql.split("|")[0]!).exec(sql.split("|")[1]!);
});

describe("moving a site between groups", () => {
  it("moves every row of the site (posts, media, keys, webhooks, every table) and leaves none behind", async () => {
    const t = await populatedSite();
    const from = await contentGroupOf(t.site.id);
    const to = otherGroup(from);
    const before = await snapshot(t.db, t.site.id);
    for (const t2 of SITE_TABLES) expect(before[t2.name]!.length, `${t2.name} seeded`).toBeGreaterThan(0);
    const versionBefore = (await directoryRow(t.site.id))!.version;
    const contentVersion = await t.db
      .prepare("SELECT content_version AS v FROM sites WHERE id = ?")
      .bind(t.site.id)
      .first<{ v: number }>();

    const started = await mover(t.site.id).start({
      site_id: t.site.id,
      to,
      requested_by: "op",
      manual: true,
      settle_ms: 0,
    });
    expect(started.ok).toBe(true);
    const done = await mover(t.site.id).runSteps(ALL_STEPS);
    expect(done).toMatchObject({ state: "done", from, to, error: null });
    expect(done!.rows_copied).toBe(
      Object.values(before).reduce((n, rows) => n + rows.length, 0) - countTriggerMade(before),
    );
    expect(done!.longest_write_refusal_ms).toBeGreaterThanOrEqual(0);

    const target = contentGroupDb(to);
    expect(await snapshot(target, t.site.id)).toEqual(before);
    expect(await siteRowsIn(t.db, t.site.id)).toBe(0);
    expect(await directoryRow(t.site.id)).toEqual({
      group_name: to,
      version: versionBefore + 1,
      moving_to: null,
    });
    expect(await fenceOf(t.db, t.site.id)).toMatchObject({ state: "moved", other_group: to, purging: 0 });
    expect(await fenceOf(target, t.site.id)).toBeNull();
    // The content version moved past every version the old group ever used.
    const after = await target
      .prepare("SELECT content_version AS v FROM sites WHERE id = ?")
      .bind(t.site.id)
      .first<{ v: number }>();
    expect(after!.v).toBeGreaterThan(contentVersion!.v);
    // Search follows the rows; neither group keeps search rows of posts it no longer has.
    expect(await searchHits(target, t.site.id, "zebrafish")).toBe(3);
    expect(await orphanSearchRows(t.db)).toBe(0);
    expect(await orphanSearchRows(target)).toBe(0);

    // Reads and writes work on the new group, through the API.
    await expectReadable(t.ck, t.posts[1]!.id, "Moving post 1 zebrafish");
    const created = await createPost(t.ck, { title: "After the move", status: "draft" });
    expect(await rowCount(target, SITE_TABLES.find((x) => x.name === "posts")!, t.site.id)).toBe(4);
    expect(created.id).toBeTruthy();

    // The old group refuses every write of the moved site, for good (an isolate that still routes there).
    await expect(
      t.db
        .prepare(
          "INSERT INTO posts (id, site_id, slug, language, title, status, created_at, updated_at) VALUES (?, ?, 'stale', 'en', 'Stale', 'draft', 'x', 'x')",
        )
        .bind(newId(), t.site.id)
        .run(),
    ).rejects.toThrow(/site_fenced/);
    await expect(
      // A stale projection push (the sites row is gone: an update finds nothing, an upsert would insert it).
      t.db
        .prepare(
          "INSERT INTO sites (id, org_id, slug, name, default_language, status, updated_at, synced_at) VALUES (?, 'o', 's', 'n', 'en', 'active', 'x', 'x')",
        )
        .bind(t.site.id)
        .run(),
    ).rejects.toThrow(/site_fenced/);
    await expect(
      // An agent's idempotency record, which names the site only by its site_id.
      t.db
        .prepare(
          "INSERT INTO idempotency_records (key_id, idempotency_key, request_hash, status, response_json, created_at, expires_at, site_id) VALUES (?, 'k4', 'h', 201, '{}', 'x', 'x', ?)",
        )
        .bind(`agent:${newId()}`, t.site.id)
        .run(),
    ).rejects.toThrow(/site_fenced/);
    // … and the group keeps serving its other sites.
    const neighbour = await tenant();
    expect((await createPost(neighbour.ck, { title: "Neighbour", status: "draft" })).id).toBeTruthy();
  });

  it("stops at every step, and dies inside every step, and each run resumes to the same end; reads work throughout", async () => {
    const t = await populatedSite();
    const from = await contentGroupOf(t.site.id);
    const to = otherGroup(from);
    const before = await snapshot(t.db, t.site.id);
    const m = mover(t.site.id);
    expect(
      (await m.start({ site_id: t.site.id, to, requested_by: null, manual: true, settle_ms: 0 })).ok,
    ).toBe(true);
    const phases = new Set<string>();
    let progress: SiteMoveProgress | null = null;
    for (let i = 0; i < 1_000; i++) {
      // The step's writes happen but its new state is lost (the object died between the two) …
      await m.runSteps(1, { loseLast: true });
      // … then the next run does it again and saves it.
      progress = await m.runSteps(1);
      phases.add(progress!.phase);
      await expectReadable(t.ck, t.posts[2]!.id, "Moving post 2 zebrafish");
      if (progress!.state === "done") break;
    }
    expect(progress?.state).toBe("done");
    expect([...phases]).toEqual(
      expect.arrayContaining([
        "mark",
        "fence_source",
        "clear_target",
        "copy",
        "settle",
        "purge_source",
        "caches",
        "done",
      ]),
    );
    expect(await snapshot(contentGroupDb(to), t.site.id)).toEqual(before);
    expect(await siteRowsIn(t.db, t.site.id)).toBe(0);
    expect(await orphanSearchRows(contentGroupDb(to))).toBe(0);
  });

  it("refuses the site's writes with 503 SITE_MOVING and Retry-After while it copies, and writes nothing", async () => {
    const t = await populatedSite();
    const from = await contentGroupOf(t.site.id);
    const m = mover(t.site.id);
    await m.start({
      site_id: t.site.id,
      to: otherGroup(from),
      requested_by: null,
      manual: true,
      settle_ms: 0,
    });
    const p = await m.runSteps(4);
    expect(p!.phase).toBe("clear_target");
    const postsBefore = await rowCount(t.db, SITE_TABLES.find((x) => x.name === "posts")!, t.site.id);
    const res = await call("POST", "/v1/posts", {
      key: t.ck,
      body: { title: "During the move", status: "draft" },
    });
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
    expect((await problem(res)).code).toBe("SITE_MOVING");
    const patch = await call("PATCH", `/v1/posts/${t.posts[0]!.id}`, { key: t.ck, body: { title: "Nope" } });
    expect(patch.status).toBe(503);
    expect(await rowCount(t.db, SITE_TABLES.find((x) => x.name === "posts")!, t.site.id)).toBe(postsBefore);
    // Reads still answer from the old group.
    await expectReadable(t.ck, t.posts[0]!.id, "Edited zebrafish");
    await m.runSteps(ALL_STEPS);
    expect((await createPost(t.ck, { title: "After", status: "draft" })).id).toBeTruthy();
  });

  it("a site's fence stalls no cron of its groups: the other sites' due posts publish and purges run; its own wait for the move", async () => {
    const t = await populatedSite();
    const from = await contentGroupOf(t.site.id);
    const to = otherGroup(from);
    const dueAt = new Date(Date.now() - 60_000).toISOString();
    /** A scheduled post of `siteKey`'s site, made due (written before any fence is up). */
    const duePost = async (siteKey: string, db: D1Database) => {
      const post = await createPost(siteKey, {
        title: "Due",
        status: "scheduled",
        published_at: "2099-01-01T00:00:00Z",
      });
      await db.prepare("UPDATE posts SET published_at = ? WHERE id = ?").bind(dueAt, post.id).run();
      return post.id;
    };
    const statusIn = async (db: D1Database, id: string) =>
      (await db.prepare("SELECT status FROM posts WHERE id = ?").bind(id).first<{ status: string }>())
        ?.status;
    const mine = await duePost(t.ck, t.db);
    // A neighbour in each group: the one the site leaves and the one it enters.
    const neighbours: { id: string; group: string; expiredKey: string }[] = [];
    for (const group of [from, to]) {
      let site = await makeSite();
      while ((await contentGroupOf(site.id)) !== group) site = await makeSite();
      const key = await createKey(site);
      const expiredKey = `k-${newId()}`;
      await contentGroupDb(group)
        .prepare(
          "INSERT INTO idempotency_records (key_id, idempotency_key, request_hash, status, response_json, created_at, expires_at) VALUES (?, ?, 'h', 201, '{}', ?, ?)",
        )
        .bind(key.id, expiredKey, dueAt, dueAt)
        .run();
      neighbours.push({ id: await duePost(key.key, contentGroupDb(group)), group, expiredKey });
    }
    // The moving site also holds a row for every other statement of the hourly pass: a settled delivery past
    // the log's 30 days, a preview link long expired, a visitor row of a past day, an effect due for
    // redelivery. A statement that touched one of them while the site is fenced would abort the whole pass.
    const old = "2000-01-01T00:00:00.000Z";
    const oldRows: [string, ...unknown[]][] = [
      [
        "INSERT INTO webhook_deliveries (id, webhook_id, site_id, event_id, event_type, body, status, created_at) SELECT ?, id, site_id, 'ev-old', 'post.published', '{}', 'delivered', ? FROM webhooks WHERE site_id = ?",
        newId(),
        old,
        t.site.id,
      ],
      [
        "INSERT INTO preview_links (id, token_hash, site_id, post_id, org_id, key_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        newId(),
        `hash-${newId()}`,
        t.site.id,
        t.posts[1]!.id,
        t.site.org_id,
        t.secretKey.id,
        old,
        old,
      ],
      [
        "INSERT INTO analytics_visitors (site_id, day, visitor_id, path) VALUES (?, '2000-01-01', 'v-old', '/')",
        t.site.id,
      ],
      [
        "INSERT INTO post_effects (id, site_id, post_id, kind, payload_json, created_at) VALUES (?, ?, ?, 'indexnow', '{}', ?)",
        newId(),
        t.site.id,
        t.posts[0]!.id,
        old,
      ],
    ];
    for (const [sql, ...params] of oldRows)
      await t.db
        .prepare(sql)
        .bind(...params)
        .run();
    const oldRowsOfSite = async (db: D1Database) =>
      (
        await db
          .prepare(
            `SELECT (SELECT count(*) FROM webhook_deliveries WHERE site_id = ?1 AND created_at = ?2)
              + (SELECT count(*) FROM preview_links WHERE site_id = ?1 AND expires_at = ?2)
              + (SELECT count(*) FROM analytics_visitors WHERE site_id = ?1 AND day = '2000-01-01') AS n`,
          )
          .bind(t.site.id, old)
          .first<{ n: number }>()
      )?.n;
    expect(await oldRowsOfSite(t.db)).toBe(3);
    const m = mover(t.site.id);
    await m.start({ site_id: t.site.id, to, requested_by: null, manual: true, settle_ms: 0 });
    // Fenced in both groups, part of its rows copied into the target (its due post among them).
    let p = await m.runSteps(1);
    for (let i = 0; i < 500 && !(p!.phase === "copy" && p!.table === "preview_links"); i++)
      p = await m.runSteps(1);
    expect(p).toMatchObject({ phase: "copy", table: "preview_links" });
    expect(await statusIn(contentGroupDb(to), mine)).toBe("scheduled");
    // Both crons run whole on both groups (the old code aborted each statement on the fenced site's rows).
    await content.scheduled({ cron: "* * * * *" });
    await content.scheduled({ cron: "30 * * * *" });
    for (const n of neighbours) {
      expect(await statusIn(contentGroupDb(n.group), n.id), n.group).toBe("published");
      const left = await contentGroupDb(n.group)
        .prepare("SELECT count(*) AS n FROM idempotency_records WHERE idempotency_key = ?")
        .bind(n.expiredKey)
        .first<{ n: number }>();
      expect(left!.n, n.group).toBe(0);
    }
    // The moving site's own due post and expired records wait in the source (refused writes, never half-done).
    expect(await statusIn(t.db, mine)).toBe("scheduled");
    expect(await oldRowsOfSite(t.db)).toBe(3);
    const records = await t.db
      .prepare("SELECT count(*) AS n FROM idempotency_records WHERE key_id = ?")
      .bind(t.secretKey.id)
      .first<{ n: number }>();
    expect(records!.n).toBe(1);
    expect((await m.runSteps(ALL_STEPS))!.state).toBe("done");
    await content.scheduled({ cron: "* * * * *" });
    expect(await statusIn(contentGroupDb(to), mine)).toBe("published");
  });

  it("rolls back on the operator's word before the switch: the site stays, whole and writable, the target empty", async () => {
    const t = await populatedSite();
    const from = await contentGroupOf(t.site.id);
    const to = otherGroup(from);
    const before = await snapshot(t.db, t.site.id);
    const version = (await directoryRow(t.site.id))!.version;
    const m = mover(t.site.id);
    await m.start({ site_id: t.site.id, to, requested_by: null, manual: true, settle_ms: 0 });
    let p = await m.runSteps(40);
    expect(p!.phase).toBe("copy");
    expect(p!.rows_copied).toBeGreaterThan(0);
    expect(await siteRowsIn(contentGroupDb(to), t.site.id)).toBeGreaterThan(0);
    const rolled = await m.rollBack();
    expect(rolled).toMatchObject({ state: "rolling_back" });
    p = await m.runSteps(ALL_STEPS);
    expect(p).toMatchObject({ state: "rolled_back", error: "rolled back by the operator" });
    expect(await siteRowsIn(contentGroupDb(to), t.site.id)).toBe(0);
    expect(await snapshot(t.db, t.site.id)).toEqual(before);
    expect(await directoryRow(t.site.id)).toEqual({ group_name: from, version, moving_to: null });
    expect(await fenceOf(t.db, t.site.id)).toBeNull();
    expect(await fenceOf(contentGroupDb(to), t.site.id)).toBeNull();
    expect((await createPost(t.ck, { title: "Writable again", status: "draft" })).id).toBeTruthy();
    // Once switched, a move only goes forward.
    await m.start({ site_id: t.site.id, to, requested_by: null, manual: true, settle_ms: 0 });
    for (let i = 0; i < 1_000; i++) {
      p = await m.runSteps(1);
      if (p!.phase === "settle") break;
    }
    expect(await m.rollBack()).toBe("past_switch");
    expect(await m.runSteps(ALL_STEPS)).toMatchObject({ state: "done" });
  });

  it("rolls back by itself when the target refuses the copy", async () => {
    const t = await populatedSite();
    const from = await contentGroupOf(t.site.id);
    const to = otherGroup(from);
    const before = await snapshot(t.db, t.site.id);
    const trigger = `refuse_${t.site.id.toLowerCase()}`;
    await contentGroupDb(to).exec(
      `CREATE TRIGGER ${trigger} BEFORE INSERT ON posts WHEN new.site_id = '${t.site.id}' BEGIN SELECT RAISE(ABORT, 'target refuses'); END`,
    );
    refusals.push(`${to}|DROP TRIGGER IF EXISTS ${trigger}`);
    const m = mover(t.site.id);
    await m.start({ site_id: t.site.id, to, requested_by: null, manual: true, settle_ms: 0 });
    const p = await m.runSteps(ALL_STEPS);
    expect(p!.state).toBe("rolled_back");
    expect(p!.error).toMatch(/step copy failed 3 times: .*target refuses/);
    expect(await siteRowsIn(contentGroupDb(to), t.site.id)).toBe(0);
    expect(await snapshot(t.db, t.site.id)).toEqual(before);
    expect((await directoryRow(t.site.id))!.moving_to).toBeNull();
    await contentGroupDb(to).exec(`DROP TRIGGER ${trigger}`);
  });

  it("refuses an unknown site, an unknown group, the site's own group and a second move as data", async () => {
    const t = await tenant();
    const from = await contentGroupOf(t.site.id);
    const unknown = newId();
    expect(
      await mover(unknown).start({ site_id: unknown, to: from, requested_by: null, manual: true }),
    ).toEqual({
      ok: false,
      reason: "unknown_site",
    });
    const m = mover(t.site.id);
    expect(await m.start({ site_id: t.site.id, to: "g999", requested_by: null, manual: true })).toEqual({
      ok: false,
      reason: "unknown_group",
    });
    expect(await m.start({ site_id: t.site.id, to: from, requested_by: null, manual: true })).toEqual({
      ok: false,
      reason: "same_group",
    });
    expect(
      (
        await m.start({
          site_id: t.site.id,
          to: otherGroup(from),
          requested_by: null,
          manual: true,
          settle_ms: 0,
        })
      ).ok,
    ).toBe(true);
    expect(
      await m.start({ site_id: t.site.id, to: otherGroup(from), requested_by: null, manual: true }),
    ).toEqual({
      ok: false,
      reason: "in_progress",
    });
    expect(await mover(newId()).rollBack()).toBe("no_move");
    await m.runSteps(ALL_STEPS);
    // Through content's RPC: progress and the groups' counts.
    expect(await content.siteMove({ site_id: t.site.id })).toMatchObject({
      state: "done",
      to: otherGroup(from),
    });
    expect(await content.siteMove({ site_id: newId() })).toBeNull();
    const counts = await content.contentGroups();
    expect(counts.map((c) => c.group)).toEqual([...contentGroups.keys()]);
    expect(counts.every((c) => c.sites >= 0)).toBe(true);
  });

  it("driven by its alarm, a move refuses writes while it copies (503), never holds them, and its progress shows the copy", async () => {
    const t = await tenant();
    const from = await contentGroupOf(t.site.id);
    const to = otherGroup(from);
    const db = contentGroupDb(from);
    // 4,000 posts cloned in SQL from one the API wrote: a copy that spans many alarm runs.
    const template = await createPost(t.ck, {
      title: "T",
      slug: "template",
      status: "published",
      blocks_json: paragraph("x".repeat(2_000)),
    });
    const columns = (
      await db.prepare("SELECT name FROM pragma_table_info('posts')").all<{ name: string }>()
    ).results.map((r) => r.name);
    for (let k = 0; k < 4; k++) {
      const set: Record<string, string> = { id: `t.id || printf('${k}%06d', i)`, slug: `'clone-${k}-' || i` };
      await db
        .prepare(
          `WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < 1000)
           INSERT INTO posts (${columns.join(", ")}) SELECT ${columns.map((c) => set[c] ?? `t.${c}`).join(", ")} FROM posts t, seq WHERE t.id = ?`,
        )
        .bind(template.id)
        .run();
    }
    const keys = await Promise.all(Array.from({ length: 4 }, () => createKey(t.site)));
    const answers: { at: number; status: number; id: string | null; retryAfter: string | null }[] = [];
    let stop = false;
    const writer = async (w: number) => {
      for (let i = 0; !stop; i++) {
        const res = await call("POST", "/v1/posts", {
          key: keys[w]!.key,
          body: { title: `Writer ${w} ${i}`, slug: `writer-${w}-${i}`, status: "draft" },
        });
        const text = await res.text();
        const id = res.status === 201 ? (JSON.parse(text) as { id: string }).id : null;
        answers.push({ at: Date.now(), status: res.status, id, retryAfter: res.headers.get("retry-after") });
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const writing = Array.from({ length: 4 }, (_, w) => writer(w));
    const m = mover(t.site.id);
    expect((await m.start({ site_id: t.site.id, to, requested_by: null, settle_ms: 0 })).ok).toBe(true);
    const polls: { at: number; phase: string | undefined; state: string | undefined }[] = [];
    for (let i = 0; i < 1_200; i++) {
      const p = await m.progress();
      polls.push({ at: Date.now(), phase: p?.phase, state: p?.state });
      if (!p || p.state === "done" || p.state === "rolled_back") break;
      await new Promise((r) => setTimeout(r, 100));
    }
    stop = true;
    await Promise.all(writing);
    expect(polls.at(-1)?.state).toBe("done");
    // The progress read is answered between the alarm's runs (a run of 100 steps held it until the end).
    const copying = polls.filter((p) => p.phase === "copy");
    expect(copying.length).toBeGreaterThan(0);
    // Writes during the copy were answered, refused, while it lasted: not held until it ended.
    const refusedWhileCopying = answers.filter((a) => a.status === 503 && a.at <= copying.at(-1)!.at);
    expect(refusedWhileCopying.length).toBeGreaterThan(0);
    expect(answers.filter((a) => a.status !== 201 && a.status !== 503)).toEqual([]);
    expect(answers.filter((a) => a.status === 503 && !a.retryAfter)).toEqual([]);
    // Every accepted write is in the new group.
    const accepted = answers.filter((a) => a.id !== null).map((a) => a.id);
    const found = await contentGroupDb(to)
      .prepare("SELECT count(*) AS n FROM posts WHERE site_id = ? AND id IN (SELECT value FROM json_each(?))")
      .bind(t.site.id, JSON.stringify(accepted))
      .first<{ n: number }>();
    expect(found!.n).toBe(accepted.length);
  }, 120_000);

  it("50 writers during a move: every accepted write is in the new group once, every refused one was 503 SITE_MOVING", async () => {
    const t = await populatedSite();
    const from = await contentGroupOf(t.site.id);
    const to = otherGroup(from);
    // One key per writer: a refused attempt counts against its key's write quota as any attempt does.
    const keys = await Promise.all(Array.from({ length: 50 }, () => createKey(t.site)));
    const m = mover(t.site.id);
    await m.start({ site_id: t.site.id, to, requested_by: null, manual: true, settle_ms: 0 });
    let copying!: () => void;
    const copyStarted = new Promise<void>((resolve) => {
      copying = resolve;
    });
    const moving = (async () => {
      for (let i = 0; i < 2_000; i++) {
        const p = await m.runSteps(2);
        if (p!.phase === "copy") copying();
        if (p!.state === "done") return p;
        await new Promise((r) => setTimeout(r, 5));
      }
      return null;
    })();
    let refusals = 0;
    const firstAnswers: number[] = [];
    let moveDone = false;
    void moving.then(() => {
      moveDone = true;
    });
    // A writer retries a refused write (as Retry-After asks, sooner here: once a second, within its key's
    // write quota of 60 a minute) until it is accepted, for as long as the move runs and a little after.
    const writer = async (i: number) => {
      if (i >= 25) await copyStarted;
      else await new Promise((r) => setTimeout(r, i * 10));
      for (let attempt = 0, afterMove = 0; afterMove < 10; attempt++) {
        if (moveDone) afterMove++;
        const res = await call("POST", "/v1/posts", {
          key: keys[i]!.key,
          body: { title: `Writer ${i}`, slug: `writer-${i}`, status: "draft" },
        });
        if (attempt === 0 && i >= 25) firstAnswers.push(res.status);
        if (res.status === 201) return;
        expect(res.status, await res.clone().text()).toBe(503);
        expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
        expect((await problem(res)).code).toBe("SITE_MOVING");
        refusals++;
        await new Promise((r) => setTimeout(r, 1_000));
      }
      throw new Error(`writer ${i} was never accepted`);
    };
    await Promise.all(Array.from({ length: 50 }, (_, i) => writer(i)));
    expect((await moving)?.state).toBe("done");
    // The writers that began while the site was copied were all refused first.
    expect(firstAnswers).toEqual(Array(25).fill(503));
    expect(refusals).toBeGreaterThanOrEqual(25);
    const { results } = await contentGroupDb(to)
      .prepare("SELECT slug FROM posts WHERE site_id = ? AND slug LIKE 'writer-%'")
      .bind(t.site.id)
      .all<{ slug: string }>();
    expect(results.map((r) => r.slug).sort()).toEqual(
      Array.from({ length: 50 }, (_, i) => `writer-${i}`).sort(),
    );
    expect(await siteRowsIn(t.db, t.site.id)).toBe(0);
  }, 180_000);
});

/** Rows the target's triggers wrote themselves (revisions and media references of copied posts): not counted as copied. */
function countTriggerMade(before: Record<string, string[]>): number {
  const posts = before.posts!.length;
  return posts + (before.post_media_refs?.length ?? 0);
}
