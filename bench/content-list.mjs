// Content listing bench: GET /v1/posts throughput and latency on a site with 1,000 and with 100,000
// posts, against the same server's trivial route (/health). Needs nothing from identity or sites: the
// site projection is written into content's own `sites` table (as the sites service's syncSite push
// would), keys are made through content's key-admin API with staff edge headers (content's own dev
// port trusts them, as the gateway would set them), posts are bulk-inserted by SQL.
//
// Standalone: `node bench/content-list.mjs [--total=1500] [--concurrency=8]` (fresh temporary store,
// ports 10787-10790). From the harness: `benchContentList(mf, urls)`.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { load, round } from "./lib.mjs";

const KEYS_PER_SITE = 16;
const ORG_ID = "01BENCH0RG000000000000000A";
const USER_ID = "bench-user";

function staffHeaders() {
  return {
    "content-type": "application/json",
    "x-user-id": USER_ID,
    "x-session-kind": "staff",
    "x-org-memberships": JSON.stringify([{ org_id: ORG_ID, role: "org_owner", permissions: [] }]),
    "x-site-memberships": "[]",
  };
}

async function makeSite(db, base, id, label) {
  const now = new Date().toISOString();
  await db
    .prepare(
      `INSERT INTO sites (id, org_id, slug, name, default_language, status, primary_domain, updated_at, synced_at)
       VALUES (?, ?, ?, ?, 'en', 'active', NULL, ?, ?)`,
    )
    .bind(id, ORG_ID, label, label, now, now)
    .run();
  await db.batch(
    ["post", "page"].map((slug) =>
      db
        .prepare("INSERT OR IGNORE INTO post_types (site_id, slug, name, is_public, created_at) VALUES (?, ?, ?, 1, ?)")
        .bind(id, slug, slug, now),
    ),
  );
  const keys = [];
  for (let i = 0; i < KEYS_PER_SITE; i++) {
    const res = await fetch(`${base}/api/v1/sites/${id}/api-keys`, {
      method: "POST",
      headers: staffHeaders(),
      body: JSON.stringify({ name: `bench ${i}`, kind: "secret", scopes: ["posts:read"] }),
    });
    if (res.status !== 201) throw new Error(`create key ${res.status} ${await res.text()}`);
    keys.push((await res.json()).key);
  }
  return keys;
}

async function insertPosts(db, siteId, count, idBase) {
  // Rows generated inside SQLite by a recursive CTE (the FTS triggers run per row); 20,000 per statement.
  for (let done = 0; done < count; done += 20_000) {
    const n = Math.min(20_000, count - done);
    await db
      .prepare(
        `WITH RECURSIVE seq(i) AS (SELECT ?1 UNION ALL SELECT i + 1 FROM seq WHERE i < ?1 + ?2 - 1)
         INSERT INTO posts (id, site_id, slug, language, post_type, title, summary, blocks_json, status, access,
                            published_at, seo_json, created_at, updated_at)
         SELECT printf('%026d', ?3 + i), ?4, 'post-' || i, 'en', 'post', 'Post number ' || i,
                'Summary of post ' || i || CASE WHEN i % 100 = 0 THEN ' zebra' ELSE '' END,
                '{"blocks":[{"type":"paragraph","data":{"text":"Body"}}]}', 'published', 'public',
                strftime('%Y-%m-%dT%H:%M:%fZ', 1600000000 + i * 60, 'unixepoch'),
                json_object('category_slugs', json_array(CASE WHEN i % 10 = 0 THEN 'news' ELSE 'misc' END),
                            'tag_slugs', json_array()),
                strftime('%Y-%m-%dT%H:%M:%fZ', 1600000000 + i * 60, 'unixepoch'),
                strftime('%Y-%m-%dT%H:%M:%fZ', 1600000000 + i * 60, 'unixepoch')
         FROM seq`,
      )
      .bind(done + 1, n, idBase, siteId)
      .run();
  }
}

function lister(base, keys, query) {
  let i = 0;
  return async () => {
    const key = keys[i++ % keys.length];
    const res = await fetch(`${base}/v1/posts${query}`, { headers: { authorization: `Bearer ${key}` } });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`list${query} ${res.status}`);
  };
}

/** A cursor `pages` pages deep into the listing (to measure keyset cost far from the head). */
async function deepCursor(base, key, pages) {
  let cursor = null;
  for (let p = 0; p < pages; p++) {
    const res = await fetch(`${base}/v1/posts?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    cursor = (await res.json()).next_cursor;
  }
  return cursor;
}

export async function benchContentList(mf, urls, { total = 1500, concurrency = 8 } = {}) {
  const db = await mf.getD1Database("DB", "content");
  const base = urls.content;
  const smallId = "01BENCHS1TE000000000000001";
  const largeId = "01BENCHS1TE000000000000002";
  const small = await makeSite(db, base, smallId, "bench-1k");
  const large = await makeSite(db, base, largeId, "bench-100k");
  const seedStarted = performance.now();
  await insertPosts(db, smallId, 1_000, 1_000_000_000);
  await insertPosts(db, largeId, 100_000, 2_000_000_000);
  const seedSeconds = round((performance.now() - seedStarted) / 1000, 1);

  const health = async () => {
    const res = await fetch(`${base}/health`);
    await res.arrayBuffer();
  };
  await load(health, { total: 100, concurrency });
  await load(lister(base, small.slice(0, 2), "?limit=20"), { total: 50, concurrency });
  await load(lister(base, large.slice(0, 2), "?limit=20"), { total: 50, concurrency });
  const deep = await deepCursor(base, large[0], 40);

  // Each case uses its own slice of keys so no key exceeds its 600 reads/min quota.
  const cases = {
    trivial_route_health: await load(health, { total, concurrency }),
    list_1k_first_page: await load(lister(base, small.slice(0, 8), "?limit=20"), { total, concurrency }),
    list_100k_first_page: await load(lister(base, large.slice(0, 4), "?limit=20"), { total, concurrency }),
    list_100k_page_2000_deep: await load(lister(base, large.slice(4, 8), `?limit=50&cursor=${encodeURIComponent(deep)}`), {
      total,
      concurrency,
    }),
    list_100k_category: await load(lister(base, large.slice(8, 12), "?limit=20&category=news"), { total, concurrency }),
    list_100k_search_q: await load(lister(base, large.slice(12, 16), "?limit=20&q=zebra"), { total, concurrency }),
  };
  const trivial = cases.trivial_route_health.rps;
  return {
    requests_per_case: total,
    concurrency,
    seed_seconds: seedSeconds,
    ...cases,
    ratio_rps_vs_trivial: Object.fromEntries(
      Object.entries(cases)
        .filter(([name]) => name !== "trivial_route_health")
        .map(([name, r]) => [name, round(r.rps / trivial, 3)]),
    ),
    ratio_100k_over_1k_rps: round(cases.list_100k_first_page.rps / cases.list_1k_first_page.rps, 3),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const arg = (name, fallback) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? fallback);
  const { startPlatform } = await import("../scripts/platform.mjs");
  const persist = mkdtempSync(path.join(os.tmpdir(), "content-list-bench-"));
  const { mf, urls } = await startPlatform({ persist, portOffset: 2000 });
  try {
    const report = await benchContentList(mf, urls, { total: arg("total", 1500), concurrency: arg("concurrency", 8) });
    console.log(JSON.stringify({ at: new Date().toISOString(), machine: `${os.cpus().length} cores`, ...report }, null, 2));
  } finally {
    await mf.dispose();
    rmSync(persist, { recursive: true, force: true });
  }
}
