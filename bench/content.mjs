// Content bench: GET /v1/posts throughput and latency for a site with 1,000 and with 100,000 posts,
// against the same server's throughput on a trivial route (/health), reported as ratios. Tenants, sites
// and keys are made through the real API; the posts are bulk-inserted into the content database (the
// write quota of 60/min per key would make 100,000 API writes a day-long job).
import { createDemo } from "../scripts/seed.mjs";
import { load, round } from "./lib.mjs";

const KEYS_PER_SITE = 8;

async function api(base, method, path, token, body) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${path} ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function insertPosts(db, siteId, count, idBase) {
  // One statement per 20,000 rows: a recursive CTE generates them inside SQLite (FTS triggers run per row).
  for (let done = 0; done < count; done += 20_000) {
    const n = Math.min(20_000, count - done);
    await db
      .prepare(
        `WITH RECURSIVE seq(i) AS (SELECT ?1 UNION ALL SELECT i + 1 FROM seq WHERE i < ?1 + ?2 - 1)
         INSERT INTO posts (id, site_id, slug, language, post_type, title, summary, blocks_json, status, access,
                            published_at, seo_json, created_at, updated_at)
         SELECT printf('%026d', ?3 + i), ?4, 'post-' || i, 'en', 'post', 'Post number ' || i, 'Summary of post ' || i,
                '{"blocks":[{"type":"paragraph","data":{"text":"Body"}}]}', 'published', 'public',
                strftime('%Y-%m-%dT%H:%M:%fZ', 1600000000 + i * 60, 'unixepoch'),
                json_object('category_slugs', json_array(CASE WHEN i % 10 = 0 THEN 'news' ELSE 'misc' END), 'tag_slugs', json_array()),
                strftime('%Y-%m-%dT%H:%M:%fZ', 1600000000 + i * 60, 'unixepoch'),
                strftime('%Y-%m-%dT%H:%M:%fZ', 1600000000 + i * 60, 'unixepoch')
         FROM seq`,
      )
      .bind(done + 1, n, idBase, siteId)
      .run();
  }
}

async function siteWithKeys(urls, token, orgId, label) {
  const site = await api(urls.gateway, "POST", "/api/v1/sites", token, {
    org_id: orgId,
    name: label,
    slug: `${label}-${Date.now().toString(36)}`,
  });
  const keys = [];
  for (let i = 0; i < KEYS_PER_SITE; i++) {
    const key = await api(urls.gateway, "POST", `/api/v1/sites/${site.id}/api-keys`, token, {
      name: `bench ${i}`,
      kind: "secret",
      scopes: ["posts:read"],
    });
    keys.push(key.key);
  }
  return { site, keys };
}

function lister(base, keys, query) {
  let i = 0;
  return async () => {
    const key = keys[i++ % keys.length];
    const res = await fetch(`${base}/v1/posts${query}`, { headers: { authorization: `Bearer ${key}` } });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`list ${res.status}`);
  };
}

export async function benchContent(mf, urls, { total = 1500, concurrency = 8 } = {}) {
  const { demo, session } = await createDemo(urls.gateway);
  const token = session.access_token;
  const db = await mf.getD1Database("DB", "content");
  const small = await siteWithKeys(urls, token, demo.org.id, "bench-1k");
  const large = await siteWithKeys(urls, token, demo.org.id, "bench-100k");
  await insertPosts(db, small.site.id, 1_000, 1_000_000_000);
  await insertPosts(db, large.site.id, 100_000, 2_000_000_000);

  const base = urls.content;
  const health = async () => {
    const res = await fetch(`${base}/health`);
    await res.arrayBuffer();
  };
  // Warm up both paths (isolate, statement caches).
  await load(health, { total: 100, concurrency });
  await load(lister(base, small.keys, "?limit=20"), { total: 50, concurrency });
  await load(lister(base, large.keys, "?limit=20"), { total: 50, concurrency });

  const trivial = await load(health, { total, concurrency });
  const list1k = await load(lister(base, small.keys, "?limit=20"), { total, concurrency });
  const list100k = await load(lister(base, large.keys, "?limit=20"), { total, concurrency });
  const filtered100k = await load(lister(base, large.keys, "?limit=20&category=news"), {
    total,
    concurrency,
  });
  return {
    requests_per_case: total,
    concurrency,
    trivial_route_health: trivial,
    list_posts_1k: list1k,
    list_posts_100k: list100k,
    list_posts_100k_category: filtered100k,
    ratio_list_1k_over_trivial_rps: round(list1k.rps / trivial.rps, 3),
    ratio_list_100k_over_trivial_rps: round(list100k.rps / trivial.rps, 3),
    ratio_100k_over_1k_rps: round(list100k.rps / list1k.rps, 3),
  };
}
