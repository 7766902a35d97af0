// Seeding for the bench, and `npm run bench:seed` (a large site in the local store `npm start` uses).
//
// Tenants, sites, keys and accounts are made through the real API. Posts are not: the write quota (60 a
// minute per key) would make 100,000 API writes a day-long job. One post is written through the API as a
// template (so author persona, post type, site projection and taxonomy shape are exactly the service's),
// then cloned inside SQLite by a recursive CTE, 20,000 rows a statement: each clone is the row POST
// /v1/posts would have stored (a ULID id whose time is its created_at, RFC 3339 times with milliseconds,
// seo_json with its category, revision 0, the organization stamp), and the triggers of the content schema
// derive the rest as they do for every insert (posts_fts, post_media_refs). One post in 20 is a draft.
// Content's rows live in the site's group (docs/decisions/site-groups.md): the site was placed by its
// creation through the API, so the directory names its group and the clones go there (`contentDbOfSite`).
import { randomBytes } from "node:crypto";
import { TOTP } from "otpauth";
import { groupBindingName } from "../scripts/databases.mjs";
import { call, createDemo } from "../scripts/seed.mjs";

export const ORIGIN = "http://127.0.0.1:8787";
export const CHUNK = 20_000;

/** One JSON call to the platform (scripts/seed.mjs's). */
export const api = call;

/**
 * The local database of the site's content group: the directory's row for the site (written when the
 * sites service pushed the new site to content) names the group, bound as DB_G00n on the content Worker.
 */
export async function contentDbOfSite(mf, siteId) {
  const directory = await mf.getD1Database("DIRECTORY", "content");
  const row = await directory
    .prepare("SELECT group_name FROM site_groups WHERE site_id = ?")
    .bind(siteId)
    .first();
  if (!row) throw new Error(`content's directory has no site ${siteId} (was it created through the API?)`);
  return mf.getD1Database(groupBindingName(row.group_name), "content");
}

/** Runs `fn` over `items` with at most `concurrency` in flight, keeping order. */
export async function pool(items, concurrency, fn) {
  const out = new Array(items.length);
  let next = 0;
  async function worker() {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return out;
}

/**
 * A tenant: a verified owner with TOTP, an organization and a demo site (scripts/seed.mjs), on a plan of
 * `siteLimit` sites (the plan row an operator would set; the default plan allows 10).
 */
export async function createTenant(mf, urls, { siteLimit = 400 } = {}) {
  const { demo, session } = await createDemo(urls.gateway);
  const sitesDb = await mf.getD1Database("DB", "sites");
  await sitesDb
    .prepare(
      `INSERT INTO org_plans (org_id, plan, site_limit, updated_at) VALUES (?, 'bench', ?, ?)
       ON CONFLICT (org_id) DO UPDATE SET site_limit = excluded.site_limit, updated_at = excluded.updated_at`,
    )
    .bind(demo.org.id, siteLimit, new Date().toISOString())
    .run();
  // The refresh token lets a long run get fresh access tokens (they live 15 minutes).
  return { demo, token: session.access_token, refreshToken: session.refresh_token, orgId: demo.org.id };
}

let siteCounter = 0;
export async function createSite(urls, tenant, label, extra = {}) {
  siteCounter += 1;
  return api(urls.gateway, "POST", "/api/v1/sites", {
    token: tenant.token,
    body: {
      org_id: tenant.orgId,
      name: label,
      slug: `${label}-${Date.now().toString(36)}-${siteCounter}`,
      default_language: "en",
      ...extra,
    },
  });
}

export const READ_SCOPES = ["posts:read"];
export const WRITE_SCOPES = ["posts:write", "posts:read"];

/** `count` keys of one site, created as its owner would (dashboard route), four at a time. */
export async function createKeys(urls, tenant, siteId, { count, kind = "secret", scopes = READ_SCOPES }) {
  const keys = await pool(Array.from({ length: count }), 4, (_, i) =>
    api(urls.gateway, "POST", `/api/v1/sites/${siteId}/api-keys`, {
      token: tenant.token,
      body: {
        name: `bench ${kind} ${i}`,
        // One byline for every key: posts written through any of them share one author persona.
        author_name: "Bench Author",
        kind,
        scopes,
        ...(kind === "public" ? { allowed_origins: [ORIGIN] } : {}),
      },
    }),
  );
  return keys.map((k) => k.key);
}

const PARAGRAPH =
  "A paragraph of an ordinary post, long enough to look like one: a few sentences about the subject, " +
  'a <b>bold</b> word and a <a href="https://example.com/">link</a>, as an autoposter would send it.';

/** The template post: what an integrator's typical POST /v1/posts looks like (about 1.5 KB of blocks). */
export function postBody(title) {
  return {
    title,
    summary: `Summary of ${title}`,
    status: "published",
    category_slugs: ["news"],
    tag_slugs: ["bench"],
    blocks_json: {
      time: 1700000000000,
      version: "2.28.0",
      blocks: [
        { type: "header", data: { text: title, level: 2 } },
        ...Array.from({ length: 5 }, () => ({ type: "paragraph", data: { text: PARAGRAPH } })),
        { type: "list", data: { style: "unordered", items: ["One", "Two", "Three"] } },
      ],
    },
  };
}

const ALPHABET = "'0123456789ABCDEFGHJKMNPQRSTVWXYZ'";
/** SQL of `expr` in Crockford base32, one character per shift (5 bits each, most significant first). */
function base32(expr, shifts) {
  return shifts.map((s) => `substr(${ALPHABET}, ((${expr}) >> ${s}) % 32 + 1, 1)`).join(" || ");
}
const TIME_SHIFTS = Array.from({ length: 10 }, (_, k) => 45 - 5 * k);
const RANDOM_SHIFTS = Array.from({ length: 16 }, (_, k) => 75 - 5 * k);

/**
 * The SQL of a cloned post's columns, for the post `i` of a recursive sequence (this seed's one site and
 * bench/fleet-seed.mjs's many): dated one a minute from the parameter `msParam` (epoch ms), its id a ULID of
 * that time and of `randomExpr` (80 bits), every twentieth a draft, every tenth in the category `news`.
 * Parameters arrive as JavaScript numbers, which D1 binds as REAL: every one is cast to INTEGER, or
 * 'post-' || i would read "post-1.0" and the id's bits would be lost to float precision.
 */
export function clonedPostColumns(msParam, randomExpr) {
  const ms = `(CAST(${msParam} AS INTEGER) + i * 60000)`;
  const iso = `strftime('%Y-%m-%dT%H:%M:%fZ', ${ms} / 1000.0, 'unixepoch')`;
  return {
    id: `${base32(ms, TIME_SHIFTS)} || ${base32(randomExpr, RANDOM_SHIFTS)}`,
    slug: "'post-' || i",
    title: "'Post number ' || i",
    summary: "'Summary of post number ' || i",
    status: "CASE WHEN i % 20 = 0 THEN 'draft' ELSE 'published' END",
    published_at: `CASE WHEN i % 20 = 0 THEN NULL ELSE ${iso} END`,
    seo_json: `json_set(t.seo_json, '$.category_slugs', json_array(CASE WHEN i % 10 = 0 THEN 'news' ELSE 'misc' END))`,
    created_at: iso,
    updated_at: iso,
  };
}

const CLONED = clonedPostColumns("?4", "CAST(?5 AS INTEGER) * 4294967296 + i");

/** The clone statement over the table's columns as they are: any column not set above is the template's. */
async function cloneSql(db) {
  const { results } = await db.prepare("SELECT name FROM pragma_table_info('posts')").all();
  const columns = results.map((r) => r.name);
  for (const name of Object.keys(CLONED)) {
    if (!columns.includes(name)) throw new Error(`posts has no column ${name}: update bench/seed.mjs`);
  }
  return `WITH RECURSIVE seq(i) AS (
    SELECT CAST(?1 AS INTEGER) UNION ALL SELECT i + 1 FROM seq WHERE i < CAST(?1 AS INTEGER) + CAST(?2 AS INTEGER) - 1),
  t AS (SELECT * FROM posts WHERE id = ?3)
INSERT INTO posts (${columns.join(", ")})
SELECT ${columns.map((c) => CLONED[c] ?? `t.${c}`).join(",\n       ")}
FROM seq, t`;
}

/** The API's view of a clone has exactly the fields, and field types, of its view of the template. */
async function checkClone(base, key, templateId) {
  const read = (ref) => api(base, "GET", `/v1/posts/${ref}`, { token: key });
  const shape = (post) =>
    Object.entries(post)
      .map(([k, v]) => `${k}:${v === null ? "null" : Array.isArray(v) ? "array" : typeof v}`)
      .sort()
      .join(",");
  const [template, clone] = await Promise.all([read(templateId), read("post-1")]);
  if (shape(template) !== shape(clone)) {
    throw new Error(`a seeded post differs from an API-written one:\n${shape(template)}\n${shape(clone)}`);
  }
}

/**
 * `count` posts in the site `siteId` (one written through the API with `writerKey`, a key of the site, the
 * rest cloned from it in the site's group). Returns the template post and the slugs `post-1` …
 * `post-{count-1}` exist (every 20th a draft).
 */
export async function seedPosts(mf, urls, writerKey, count, siteId) {
  const template = await api(urls.gateway, "POST", "/v1/posts", {
    token: writerKey,
    body: { ...postBody("Bench template post"), slug: "bench-template" },
  });
  const db = await contentDbOfSite(mf, siteId);
  const clones = count - 1;
  // Clones are dated one a minute, ending before the template was written.
  const start = Date.now() - (clones + 1) * 60_000;
  const salt = randomBytes(4).readUInt32BE() >>> 3;
  const sql = await cloneSql(db);
  for (let done = 0; done < clones; done += CHUNK) {
    const n = Math.min(CHUNK, clones - done);
    await db
      .prepare(sql)
      .bind(done + 1, n, template.id, start, salt)
      .run();
  }
  if (clones > 0) await checkClone(urls.gateway, writerKey, template.id);
  return template;
}

/** Seeded leads: `count` clean leads of one form (generated inside SQLite, as the analytics bench does). */
export async function seedLeads(mf, siteId, formId, count) {
  const db = await contentDbOfSite(mf, siteId);
  const idBase = Number(randomBytes(3).readUIntBE(0, 3)) * 1_000_000;
  for (let done = 0; done < count; done += CHUNK) {
    const n = Math.min(CHUNK, count - done);
    await db
      .prepare(
        `WITH RECURSIVE seq(i) AS (
           SELECT CAST(?1 AS INTEGER) UNION ALL SELECT i + 1 FROM seq WHERE i < CAST(?1 AS INTEGER) + CAST(?2 AS INTEGER) - 1)
         INSERT INTO leads (id, site_id, form_id, status, spam_reasons_json, fields_json, content_hash, created_at)
         SELECT printf('%026d', CAST(?3 AS INTEGER) + i), ?4, ?5, 'clean', '[]',
                json_object('name', 'Lead ' || i, 'email', 'lead' || i || '@example.com',
                            'message', 'A message of a few words, "quoted", with a comma, like real ones.'),
                'h' || i, strftime('%Y-%m-%dT%H:%M:%fZ', 1700000000 + i, 'unixepoch')
         FROM seq`,
      )
      .bind(done + 1, n, idBase, siteId, formId)
      .run();
  }
}

/** A site with the forms app on, one form and `count` leads. */
export async function leadsSite(mf, urls, tenant, label, count) {
  const site = await createSite(urls, tenant, label, { settings: { applets: { forms: { enabled: true } } } });
  const form = await api(urls.gateway, "POST", `/api/v1/sites/${site.id}/forms`, {
    token: tenant.token,
    body: {
      name: "Contact",
      fields: [
        { name: "name", type: "text", required: true },
        { name: "email", type: "email", required: true },
        { name: "message", type: "textarea" },
      ],
    },
  });
  await seedLeads(mf, site.id, form.id, count);
  return { site, form };
}

let accountCounter = 0;
/**
 * A verified account (signup, the code from the dev outbox, confirm), with a confirmed TOTP factor when
 * asked: only then does a right password get past login/start (200 and a challenge; else 428).
 */
export async function verifiedAccount(base, label, { totp = false } = {}) {
  accountCounter += 1;
  const i = accountCounter;
  const email = `${label}-${Date.now().toString(36)}-${i}@bench.example`;
  const password = `bench password ${i} long enough`;
  // Signups are limited per IP (10 an hour): each account signs up from its own address.
  const ip = { "cf-connecting-ip": `10.250.${Math.floor(i / 256) % 256}.${i % 256}` };
  await api(base, "POST", "/api/v1/auth/signup", { body: { email, password }, headers: ip });
  let code = null;
  for (let attempt = 0; attempt < 50 && !code; attempt++) {
    const outbox = await api(base, "GET", `/api/v1/auth/__dev/outbox?to=${encodeURIComponent(email)}`);
    code = outbox.messages.find((m) => m.purpose === "email_verify")?.code ?? null;
    if (!code) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (!code) throw new Error(`no email_verify code for ${email}`);
  const session = await api(base, "POST", "/api/v1/auth/email/verify/confirm", {
    body: { email, code },
    headers: ip,
  });
  if (totp) {
    const token = session.access_token;
    const enrol = await api(base, "POST", "/api/v1/auth/mfa/totp", { token, body: {} });
    const generator = new TOTP({ secret: enrol.secret, digits: 6, period: 30, algorithm: "SHA1" });
    await api(base, "POST", "/api/v1/auth/mfa/totp/confirm", { token, body: { code: generator.generate() } });
  }
  return { email, password };
}

export async function verifiedAccounts(base, count, label, options = {}) {
  return pool(Array.from({ length: count }), 2, () => verifiedAccount(base, label, options));
}

// `npm run bench:seed -- [--posts N] [--port-offset N]`: one site with N posts (default 100,000) and a
// secret and a public key, in the local store `npm start` uses (.wrangler/state); stop `npm start` first,
// then start it again to browse the site.
async function main() {
  const { startPlatform } = await import("../scripts/platform.mjs");
  const arg = (name, fallback) => {
    const i = process.argv.indexOf(name);
    return i >= 0 ? Number(process.argv[i + 1]) : fallback;
  };
  const posts = arg("--posts", 100_000);
  const portOffset = arg("--port-offset", 0);
  const started = performance.now();
  const { mf, urls } = await startPlatform({
    portOffset,
    // Only the Workers' errors: a seed's thousand request lines would bury its answer.
    handleStructuredLogs: (entry) => {
      if (entry.level === "error") process.stderr.write(`${entry.message}\n`);
    },
  });
  try {
    const tenant = await createTenant(mf, urls);
    const site = await createSite(urls, tenant, `large-${posts}`);
    const [writer] = await createKeys(urls, tenant, site.id, {
      count: 1,
      scopes: ["posts:write", "posts:read", "import", "export"],
    });
    const [reader] = await createKeys(urls, tenant, site.id, { count: 1, kind: "public" });
    await seedPosts(mf, urls, writer, posts, site.id);
    console.log(
      JSON.stringify(
        {
          site: { id: site.id, slug: site.slug },
          posts,
          keys: { secret: writer, public: reader, public_origin: ORIGIN },
          owner: { email: tenant.demo.user.email, password: tenant.demo.user.password },
          seconds: Math.round((performance.now() - started) / 100) / 10,
        },
        null,
        2,
      ),
    );
  } finally {
    await mf.dispose();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error) => {
    console.error(error.message);
    if (/EADDRINUSE|address already in use/i.test(String(error))) {
      console.error("The ports are taken: stop `npm start` first (the seed writes its store).");
    }
    process.exit(1);
  });
}
