// The bench's sections: what each seeds, and the rows it measures. A "load" row is a spec for the load
// generator (loadgen.mjs), measured after a warm-up; a "single" row is one timed request (export, import).
// Quotas are never what is measured: reads rotate over pools of keys sized for the run (each key allows
// 600 reads a minute, 60 writes), and public reads and logins come from many client addresses.
import { round, summarize, timed } from "./lib.mjs";
import { measure } from "./loadgen.mjs";
import { treeMemory, watchMemory } from "./memory.mjs";
import {
  api,
  contentDbOfSite,
  createKeys,
  createSite,
  leadsSite,
  ORIGIN,
  pool,
  postBody,
  READ_SCOPES,
  seedPosts,
  verifiedAccounts,
  WRITE_SCOPES,
} from "./seed.mjs";

// `fleet` runs on a stack of its own (bench/fleet.mjs), not through prepareSection.
export const SECTIONS = ["posts", "write", "sites", "login", "bulk", "memory", "analytics", "leads", "fleet"];
export const DEFAULT_SECTIONS = ["posts", "write", "sites", "login", "bulk", "memory"];

const fmt = (n) => n.toLocaleString("en-US");

/** Keys a pool needs so that `rps` requests a second over `seconds` never empty a bucket. */
export function poolSize(rps, seconds, capacity, perSecond) {
  return Math.max(2, Math.ceil((rps * seconds) / (capacity + perSecond * seconds)));
}

/** The seeded posts sites (shared by `posts` and `bulk`), made once. */
async function postsSites(ctx) {
  if (ctx.postsSites) return ctx.postsSites;
  const sites = [];
  for (const size of ctx.options.sizes) {
    const started = performance.now();
    const site = await createSite(ctx.urls, ctx.tenant, `bench-${size}`);
    const [writer] = await createKeys(ctx.urls, ctx.tenant, site.id, {
      count: 1,
      scopes: [...WRITE_SCOPES, "export", "import"],
    });
    await seedPosts(ctx.mf, ctx.urls, writer, size, site.id);
    ctx.seeding[`posts_${size}_seconds`] = round((performance.now() - started) / 1000, 1);
    sites.push({ size, site, writer });
  }
  ctx.postsSites = sites;
  return sites;
}

/** `count` list paths, each with its own `since` (seconds after 2000-01-01 from `from`): no two alike. */
export function coldPaths(count, from) {
  const base = Date.UTC(2000, 0, 1);
  return Array.from({ length: count }, (_, i) => {
    const since = new Date(base + (from + i) * 1000).toISOString().replace(".000Z", "Z");
    return `/v1/posts?limit=20&since=${since}`;
  });
}

const bearer = (keys) => ({ authorization: keys.map((k) => `Bearer ${k}`) });

async function postsRows(ctx) {
  const { options, urls, tenant } = ctx;
  const sites = await postsSites(ctx);
  const reads = poolSize(options.maxRps, options.duration + options.warmup, 600, 10);
  const rows = [];
  for (const kind of ["secret", "public"]) {
    for (const { size, site } of sites) {
      const keys = await createKeys(urls, tenant, site.id, { count: reads, kind, scopes: READ_SCOPES });
      const label = kind === "secret" ? "ck_" : "pk_";
      rows.push({
        id: `list_${label}${size}`,
        label: `GET /v1/posts?limit=20 (${label}, ${fmt(size)} posts)`,
        group: `list_${label}`,
        size,
        spec:
          kind === "secret"
            ? { method: "GET", paths: ["/v1/posts?limit=20"], rotate: bearer(keys) }
            : {
                method: "GET",
                paths: keys.map((k) => `/v1/posts?limit=20&key=${k}`),
                headers: { origin: ORIGIN },
                ip: { offset: 0 },
              },
      });
    }
  }
  const middle = sites[Math.min(1, sites.length - 1)];
  const publicKeys = await createKeys(urls, tenant, middle.site.id, {
    count: reads,
    kind: "public",
    scopes: READ_SCOPES,
  });
  // 1,000 different published posts (every 20th seeded post is a draft: skipped).
  const slugs = [];
  for (let i = 1; slugs.length < Math.min(1000, middle.size - 1) && i < middle.size; i++) {
    if (i % 20 !== 0) slugs.push(`post-${i}`);
  }
  rows.push({
    id: "detail_pk",
    label: `GET /v1/posts/{slug} (pk_, ${fmt(middle.size)} posts, ${fmt(slugs.length)} slugs)`,
    spec: {
      method: "GET",
      paths: slugs.map((s, i) => `/v1/posts/${s}?key=${publicKeys[i % publicKeys.length]}`),
      headers: { origin: ORIGIN },
      ip: { offset: 1 << 20 },
    },
  });
  // A cold list: every request a new `since`, so neither the isolate's answers nor the Cache API hold it.
  const coldKeys = await createKeys(urls, tenant, middle.site.id, { count: reads, scopes: READ_SCOPES });
  rows.push({
    id: "list_cold_ck",
    label: `GET /v1/posts?limit=20&since=… (ck_, ${fmt(middle.size)} posts, a new since each request)`,
    spec: { method: "GET", paths: coldPaths(40_000, 0), rotate: bearer(coldKeys) },
  });
  const statusKeys = await createKeys(urls, tenant, middle.site.id, { count: reads, scopes: WRITE_SCOPES });
  rows.push({
    id: "status_ck",
    label: `GET /v1/posts?status=draft,published (ck_, ${fmt(middle.size)} posts)`,
    spec: { method: "GET", paths: ["/v1/posts?status=draft,published&limit=20"], rotate: bearer(statusKeys) },
  });
  return rows;
}

async function writeRows(ctx) {
  const { options, urls, tenant } = ctx;
  const site = await createSite(urls, tenant, "bench-write");
  const keys = await createKeys(urls, tenant, site.id, {
    count: poolSize(options.maxWriteRps, options.duration + options.warmup, 60, 1),
    scopes: WRITE_SCOPES,
  });
  const body = JSON.stringify(postBody(`Bench write {n} ${Date.now().toString(36)}`));
  return [
    {
      id: "create_post",
      label: "POST /v1/posts (ck_, published, ~1.5 KB of blocks)",
      spec: {
        method: "POST",
        paths: ["/v1/posts"],
        headers: { "content-type": "application/json" },
        rotate: bearer(keys),
        body,
      },
    },
  ];
}

/** A fresh access token of the bench owner (the first may be near its 15 minutes by now). */
async function ownerToken(ctx) {
  const session = await api(ctx.urls.gateway, "POST", "/api/v1/auth/refresh", {
    body: { refresh_token: ctx.tenant.refreshToken },
  });
  ctx.tenant.refreshToken = session.refresh_token;
  ctx.tenant.token = session.access_token;
  return session.access_token;
}

async function sitesRows(ctx) {
  const { urls, tenant } = ctx;
  const started = performance.now();
  const sites = await pool(Array.from({ length: 200 }), 4, (_, i) => createSite(urls, tenant, `batch-${i}`));
  ctx.seeding.sites_200_seconds = round((performance.now() - started) / 1000, 1);
  const ids = sites.map((s) => s.id);
  const token = await ownerToken(ctx);
  const auth = { authorization: `Bearer ${token}` };
  return [
    {
      id: "sites_batch",
      label: "GET /api/v1/sites/batch (200 ids)",
      spec: { method: "GET", paths: [`/api/v1/sites/batch?ids=${ids.join(",")}`], headers: auth },
    },
    {
      id: "sites_one",
      label: "GET /api/v1/sites/{id} (one of the 200)",
      spec: { method: "GET", paths: ids.map((id) => `/api/v1/sites/${id}`), headers: auth },
    },
  ];
}

const LOGIN = "/api/v1/auth/login/start";
const json = { "content-type": "application/json" };

async function loginRows(ctx) {
  const { options, urls } = ctx;
  const amount = options.loginAmount;
  // The lockout counts password attempts per address until a whole login succeeds (5 lock it): each
  // account takes at most 4 attempts here.
  const right = await verifiedAccounts(urls.gateway, Math.ceil(amount / 4), "bench-right", { totp: true });
  const wrong = await verifiedAccounts(urls.gateway, Math.ceil(amount / 4), "bench-wrong");
  ctx.loginSampleAccounts = await verifiedAccounts(urls.gateway, options.samplerAccounts, "bench-sample");
  const tag = Date.now().toString(36);
  const single = { connections: 1, amount, warmup: false };
  return [
    {
      id: "login_right",
      label: "POST login/start (right password, TOTP enrolled; 1 connection)",
      ...single,
      expect: 200,
      spec: {
        method: "POST",
        paths: [LOGIN],
        headers: json,
        ip: { offset: 2 << 20 },
        bodies: right.map((u) => JSON.stringify(u)),
      },
    },
    {
      id: "login_unknown",
      label: "POST login/start (unknown e-mail; 1 connection)",
      ...single,
      expect: 401,
      spec: {
        method: "POST",
        paths: [LOGIN],
        headers: json,
        ip: { offset: 3 << 20 },
        body: JSON.stringify({
          email: `nobody-{n}-${tag}@bench.example`,
          password: "bench password long enough",
        }),
      },
    },
    {
      id: "login_wrong",
      label: "POST login/start (wrong password; 1 connection)",
      ...single,
      expect: 401,
      spec: {
        method: "POST",
        paths: [LOGIN],
        headers: json,
        ip: { offset: 4 << 20 },
        bodies: wrong.map((u) => JSON.stringify({ email: u.email, password: `${u.password}x` })),
      },
    },
  ];
}

async function postOnce(base, body, ip) {
  const res = await fetch(`${base}${LOGIN}`, {
    method: "POST",
    headers: { ...json, "cf-connecting-ip": ip },
    body: JSON.stringify(body),
  });
  await res.arrayBuffer();
  return res.status;
}

/**
 * The timing of the two refusals, interleaved one after the other so drift hits both alike: unknown
 * address vs known address with a wrong password, three tries per address (below the lockout).
 */
export async function loginTimingSample(ctx) {
  const base = ctx.urls.gateway;
  const unknown = [];
  const wrong = [];
  const tag = Date.now().toString(36);
  for (let round = 0; round < 3; round++) {
    for (const [i, u] of ctx.loginSampleAccounts.entries()) {
      const ip = `10.240.${round}.${i}`;
      const a = await timed(() =>
        postOnce(base, { email: `nobody-${tag}-${i}@bench.example`, password: u.password }, ip),
      );
      const b = await timed(() => postOnce(base, { email: u.email, password: `${u.password}x` }, ip));
      if (a.result === 401) unknown.push(a.ms);
      if (b.result === 401) wrong.push(b.ms);
    }
  }
  const u = summarize(unknown);
  const w = summarize(wrong);
  return { unknown: u, wrong: w, ratio_p50: round(u.p50_ms / w.p50_ms, 3) };
}

/** One streamed download: time to the first body chunk, total, size, lines, and workerd's memory. */
async function download(ctx, path, key) {
  const { result, memory } = await watchMemory(ctx.workerdPid, async () => {
    const started = performance.now();
    const res = await fetch(`${ctx.urls.gateway}${path}`, { headers: { authorization: `Bearer ${key}` } });
    if (res.status !== 200) throw new Error(`${path} ${res.status} ${await res.text()}`);
    const reader = res.body.getReader();
    let first = null;
    let bytes = 0;
    let lines = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (first === null) first = performance.now() - started;
      bytes += value.byteLength;
      for (const b of value) if (b === 10) lines++;
    }
    return { first_byte_ms: first, total_ms: performance.now() - started, bytes, lines };
  });
  return {
    ...result,
    mb_per_s: result.bytes / 1e6 / (result.total_ms / 1000),
    workerd_before_mb: memory.before_mb,
    workerd_peak_mb: memory.peak_mb,
    memory_method: memory.method,
  };
}

async function bulkSingles(ctx) {
  const { urls, tenant, options } = ctx;
  const sites = await postsSites(ctx);
  const singles = [];
  // Exports of the two largest sites: the first byte, the rate, and memory that must not grow with rows.
  for (const { size, site } of sites.slice(-2)) {
    const [key] = await createKeys(urls, tenant, site.id, { count: 1, scopes: ["export", "posts:write"] });
    singles.push({
      id: `export_${size}`,
      label: `GET /v1/export?resource=posts (${fmt(size)} posts)`,
      size,
      ...(await download(ctx, "/v1/export?resource=posts", key)),
    });
  }
  const site = await createSite(urls, tenant, "bench-import");
  const [key] = await createKeys(urls, tenant, site.id, { count: 1, scopes: ["import", "posts:write"] });
  const tag = Date.now().toString(36);
  const ndjson = Array.from({ length: options.importLines }, (_, i) =>
    JSON.stringify({ ...postBody(`Imported ${i} ${tag}`), slug: `imported-${i}` }),
  ).join("\n");
  const { ms, result } = await timed(() =>
    api(urls.gateway, "POST", "/v1/import", {
      token: key,
      body: ndjson,
      headers: { "content-type": "application/x-ndjson" },
    }),
  );
  singles.push({
    id: "import",
    label: `POST /v1/import (${fmt(options.importLines)} lines)`,
    total_ms: ms,
    bytes: Buffer.byteLength(ndjson),
    lines: options.importLines,
    lines_per_s: options.importLines / (ms / 1000),
    created: result.summary.created,
    failed: result.summary.failed,
  });
  return singles;
}

async function leadsSingles(ctx) {
  const { mf, urls, tenant, options } = ctx;
  const count = options.sizes[options.sizes.length - 1];
  const started = performance.now();
  const { site, form } = await leadsSite(mf, urls, tenant, `bench-leads-${count}`, count);
  ctx.seeding[`leads_${count}_seconds`] = round((performance.now() - started) / 1000, 1);
  const singles = [];
  for (const [format, query] of [
    ["ndjson", ""],
    ["csv", `&format=csv&form_id=${form.id}`],
  ]) {
    // A fresh key per download: the strict leads limit (10 a minute per key) is not what is measured.
    const [key] = await createKeys(urls, tenant, site.id, { count: 1, scopes: ["export", "leads:read"] });
    singles.push({
      id: `leads_${format}_${count}`,
      label: `GET /v1/export?resource=leads (${format}, ${fmt(count)} leads)`,
      ...(await download(ctx, `/v1/export?resource=leads${query}`, key)),
    });
  }
  return singles;
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

const BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";

async function analyticsRows(ctx) {
  const { mf, urls, tenant, options } = ctx;
  const collecting = await createSite(urls, tenant, "bench-collect");
  const [pk] = await createKeys(urls, tenant, collecting.id, { count: 1, kind: "public" });
  const reading = await createSite(urls, tenant, "bench-analytics");
  await seedYear(await contentDbOfSite(mf, reading.id), reading.id);
  const keys = await createKeys(urls, tenant, reading.id, {
    count: poolSize(options.maxRps / 4, options.duration + options.warmup, 600, 10),
    scopes: ["analytics:read"],
  });
  return [
    {
      id: "collect",
      label: "POST /v1/analytics/collect (pk_, a new visitor each)",
      spec: {
        method: "POST",
        paths: [`/v1/analytics/collect?key=${pk}`],
        headers: { origin: ORIGIN, "user-agent": BROWSER, "content-type": "text/plain" },
        ip: { offset: 5 << 20 },
        body: JSON.stringify({ path: "/post-{n}", referrer: "https://search.example/" }),
      },
    },
    {
      id: "analytics_summary",
      label: "GET /v1/analytics/summary?days=365 (73,000 rollup rows)",
      spec: { method: "GET", paths: ["/v1/analytics/summary?days=365"], rotate: bearer(keys) },
    },
  ];
}

/**
 * The soak: cold list reads (a new `since` each, so every answer is a new cache entry) for
 * `options.soakSeconds` in four equal parts, the platform's resident memory (this process's children:
 * workerd) after each. Growth must level off: every cache on the path is bounded by entries, not requests.
 */
async function soakSingles(ctx) {
  const { options, urls, tenant } = ctx;
  const [{ site }] = (await postsSites(ctx)).slice(1, 2);
  const part = options.soakSeconds / 4;
  const keys = await createKeys(urls, tenant, site.id, {
    count: poolSize(1500, options.soakSeconds, 600, 10),
    scopes: READ_SCOPES,
  });
  const rss = () =>
    treeMemory(process.pid)
      .processes.filter((p) => p.comm.startsWith("workerd"))
      .reduce((sum, p) => sum + (p.rss_mb ?? 0), 0);
  const samples = [round(rss(), 1)];
  let requests = 0;
  for (let i = 0; i < 4; i++) {
    const spec = {
      base: urls.gateway,
      method: "GET",
      connections: options.connections,
      duration: part,
      paths: coldPaths(60_000, 100_000 + i * 60_000),
      rotate: bearer(keys),
    };
    const run = await measure(ctx.tool, spec);
    requests += run.requests;
    samples.push(round(rss(), 1));
  }
  return [
    {
      id: "soak",
      label: `Cold list soak, ${options.soakSeconds} s (${fmt(requests)} requests, each a new since): workerd RSS MB`,
      requests,
      rss_samples_mb: samples,
      growth_mb: round(samples[4] - samples[0], 1),
      last_half_growth_mb: round(samples[4] - samples[2], 1),
    },
  ];
}

/** What each section contributes: load rows and single rows (both lists may be empty). */
export async function prepareSection(name, ctx) {
  switch (name) {
    case "posts":
      return { load: await postsRows(ctx) };
    case "write":
      return { load: await writeRows(ctx) };
    case "sites":
      return { load: await sitesRows(ctx) };
    case "login":
      return { load: await loginRows(ctx), after: loginTimingSample };
    case "bulk":
      return { singles: () => bulkSingles(ctx) };
    case "analytics":
      return { load: await analyticsRows(ctx) };
    case "leads":
      return { singles: () => leadsSingles(ctx) };
    case "memory":
      return { singles: () => soakSingles(ctx) };
    default:
      throw new Error(`unknown section ${name}`);
  }
}
