// Content bench: GET /v1/posts throughput and latency for a site with 1,000 and with 100,000 posts,
// against the same server's throughput on a trivial route (/health), reported as ratios; and the leads
// export (NDJSON and CSV) of 10,000 and 100,000 leads: time to the first byte against the whole download,
// which a streamed export keeps apart (a buffered one would show them nearly equal). Tenants, sites and
// keys are made through the real API; posts and leads are bulk-inserted into the content database (the
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

async function insertLeads(db, siteId, formId, count, idBase) {
  for (let done = 0; done < count; done += 20_000) {
    const n = Math.min(20_000, count - done);
    await db
      .prepare(
        `WITH RECURSIVE seq(i) AS (SELECT ?1 UNION ALL SELECT i + 1 FROM seq WHERE i < ?1 + ?2 - 1)
         INSERT INTO leads (id, site_id, form_id, status, spam_reasons_json, fields_json, content_hash, created_at)
         SELECT printf('%026d', ?3 + i), ?4, ?5, 'clean', '[]',
                json_object('name', 'Lead ' || i, 'email', 'lead' || i || '@example.com',
                            'message', 'A message of a few words, "quoted", with a comma, like real ones.'),
                'h' || i, strftime('%Y-%m-%dT%H:%M:%fZ', 1700000000 + i, 'unixepoch')
         FROM seq`,
      )
      .bind(done + 1, n, idBase, siteId, formId)
      .run();
  }
}

/** A site with the forms app on (through its settings, as a site owner would), one form, `count` leads. */
async function leadsSite(urls, db, token, orgId, label, count, idBase) {
  const site = await api(urls.gateway, "POST", "/api/v1/sites", token, {
    org_id: orgId,
    name: label,
    slug: `${label}-${Date.now().toString(36)}`,
    settings: { applets: { forms: { enabled: true } } },
  });
  const form = await api(urls.gateway, "POST", `/api/v1/sites/${site.id}/forms`, token, {
    name: "Contact",
    fields: [
      { name: "name", type: "text", required: true },
      { name: "email", type: "email", required: true },
      { name: "message", type: "textarea" },
    ],
  });
  await insertLeads(db, site.id, form.id, count, idBase);
  return { site, form };
}

/** One export download: time to the first body chunk, total time, size and lines. */
async function timeExport(urls, token, siteId, query) {
  // A fresh key per download: the strict leads limit (10 a minute per key) is not what is measured.
  const key = await api(urls.gateway, "POST", `/api/v1/sites/${siteId}/api-keys`, token, {
    name: "bench export",
    kind: "secret",
    scopes: ["export", "leads:read"],
  });
  const started = performance.now();
  const res = await fetch(`${urls.content}/v1/export?resource=leads${query}`, {
    headers: { authorization: `Bearer ${key.key}` },
  });
  if (res.status !== 200) throw new Error(`export ${res.status} ${await res.text()}`);
  const reader = res.body.getReader();
  let firstByteMs = null;
  let bytes = 0;
  let lines = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (firstByteMs === null) firstByteMs = performance.now() - started;
    bytes += value.byteLength;
    for (const b of value) if (b === 10) lines++;
  }
  const totalMs = performance.now() - started;
  return { first_byte_ms: round(firstByteMs), total_ms: round(totalMs), bytes, lines };
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
  const leads10k = await leadsSite(urls, db, token, demo.org.id, "bench-leads-10k", 10_000, 3_000_000_000);
  const leads100k = await leadsSite(urls, db, token, demo.org.id, "bench-leads-100k", 100_000, 4_000_000_000);
  const export10k = await timeExport(urls, token, leads10k.site.id, "");
  const export100k = await timeExport(urls, token, leads100k.site.id, "");
  const csv100k = await timeExport(
    urls,
    token,
    leads100k.site.id,
    `&format=csv&form_id=${leads100k.form.id}`,
  );
  return {
    leads_export_10k_ndjson: export10k,
    leads_export_100k_ndjson: export100k,
    leads_export_100k_csv: csv100k,
    ratio_leads_export_100k_first_byte_over_total: round(export100k.first_byte_ms / export100k.total_ms, 3),
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
