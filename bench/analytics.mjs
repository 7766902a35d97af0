// Analytics bench: the hot path of page-view collection (POST /v1/analytics/collect: key lookup, the
// per-(site, IP) limiter, one D1 batch) against the same server's trivial route and a keyed read that
// does the key lookup alone, and the analytics reads over a year of rollups (365 days x 200 paths).
import { createDemo } from "../scripts/seed.mjs";
import { load, round } from "./lib.mjs";

const ORIGIN = "http://127.0.0.1:8787";
const BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";

function collector(base, key, ipOf) {
  let i = 0;
  return async () => {
    const n = i++;
    const res = await fetch(`${base}/v1/analytics/collect?key=${key}`, {
      method: "POST",
      headers: {
        origin: ORIGIN,
        "user-agent": BROWSER,
        "cf-connecting-ip": ipOf(n),
        "content-type": "text/plain",
      },
      body: JSON.stringify({ path: `/post-${n % 50}`, referrer: "https://search.example/" }),
    });
    await res.arrayBuffer();
    if (res.status !== 204) throw new Error(`collect ${res.status}`);
  };
}

function getter(base, path, headers) {
  return async () => {
    const res = await fetch(`${base}${path}`, { headers });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${path} ${res.status}`);
  };
}

async function seedYear(db, siteId) {
  // 365 days x 200 paths of rollups, generated inside SQLite.
  await db
    .prepare(
      `WITH RECURSIVE d(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM d WHERE i < 364),
                      p(j) AS (SELECT 0 UNION ALL SELECT j + 1 FROM p WHERE j < 199)
       INSERT INTO analytics_paths_daily (site_id, day, path, views, visitors)
       SELECT ?1, date('now', '-' || i || ' days'), '/post-' || j, 1 + (i * j) % 97, 1 + (i * j) % 31 FROM d, p`,
    )
    .bind(siteId)
    .run();
  await db
    .prepare(
      `WITH RECURSIVE d(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM d WHERE i < 364)
       INSERT INTO analytics_daily (site_id, day, views, visitors, bot_views)
       SELECT ?1, date('now', '-' || i || ' days'), 5000, 900, 300 FROM d`,
    )
    .bind(siteId)
    .run();
}

export async function benchAnalytics(mf, urls, { total = 1500, concurrency = 8 } = {}) {
  const collecting = await createDemo(urls.gateway);
  const reading = await createDemo(urls.gateway);
  const db = await mf.getD1Database("DB", "content");
  await seedYear(db, reading.demo.site.id);

  const base = urls.content;
  const pk = collecting.demo.keys.public;
  const ck = reading.demo.keys.secret;
  const health = getter(base, "/health", {});
  // The key lookup alone: GET /v1/site with ck_ keys, spread over keys to stay under each key's read quota.
  const readKeys = [];
  for (let i = 0; i < 4; i++) {
    const res = await fetch(`${urls.gateway}/api/v1/sites/${collecting.demo.site.id}/api-keys`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${collecting.session.access_token}`,
        "content-type": "application/json",
      },
      body: JSON.stringify({ name: `bench ${i}`, kind: "secret", scopes: ["posts:read"] }),
    });
    readKeys.push((await res.json()).key);
  }
  let k = 0;
  const keyed = () =>
    getter(base, "/v1/site", { authorization: `Bearer ${readKeys[k++ % readKeys.length]}` })();
  // Every view a new visitor (one IP each), or 25 returning visitors (60 views each: the limiter's cap).
  const newVisitors = (offset) => collector(base, pk, (n) => `10.${offset}.${(n >> 8) & 255}.${n & 255}`);
  const returning = collector(base, pk, (n) => `10.200.0.${n % 25}`);

  await load(health, { total: 100, concurrency });
  await load(keyed, { total: 100, concurrency });
  await load(newVisitors(1), { total: 100, concurrency });

  const trivial = await load(health, { total, concurrency });
  const keyOnly = await load(keyed, { total, concurrency });
  const collectNew = await load(newVisitors(2), { total, concurrency });
  const collectReturning = await load(returning, { total, concurrency });
  const auth = { authorization: `Bearer ${ck}` };
  const summary30 = await load(getter(base, "/v1/analytics/summary", auth), { total: 150, concurrency });
  const summary365 = await load(getter(base, "/v1/analytics/summary?days=365", auth), {
    total: 150,
    concurrency,
  });
  const posts365 = await load(getter(base, "/v1/analytics/posts?days=365&limit=200", auth), {
    total: 150,
    concurrency,
  });
  return {
    requests_per_case: total,
    concurrency,
    trivial_route_health: trivial,
    keyed_read_site: keyOnly,
    collect_new_visitors: collectNew,
    collect_returning_visitors: collectReturning,
    summary_30_days_of_73k_rollup_rows: summary30,
    summary_365_days_of_73k_rollup_rows: summary365,
    posts_365_days_limit_200: posts365,
    ratio_collect_over_trivial_rps: round(collectNew.rps / trivial.rps, 3),
    ratio_collect_over_keyed_read_rps: round(collectNew.rps / keyOnly.rps, 3),
  };
}
