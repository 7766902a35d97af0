// The fleet's bulk seed (issue 38, "Measured in npm run bench"): thousands of sites and a million posts
// written straight into the local D1 databases of a stack with several content groups, not through the
// API (its write quota would make it a week-long job). What the worker would have written:
// - each site's directory row (`site_groups`), placed by the worker's rule (src/content/core/groups.ts):
//   the group holding the fewest sites, ties to the lowest name, counting the sites already there;
// - each site's projection row in its group (`sites`), a copy of the measured site's row (same org)
//   under the new id and slug;
// - its posts, cloned inside SQLite from the measured site's template post (written through the API, so
//   every column is the service's own), site by site: the triggers of migrations/content derive the rest
//   exactly as for an API write (posts_fts, posts_search, post_revisions, post_media_refs, the content
//   version, the organization stamp).
// Posts are spread unevenly: sites of the measured site's group get twice the weight of the others (and
// every site one of five sizes), so that group is the fullest by posts. Each statement binds its sites as
// ONE JSON parameter (json_each), far under D1's 100 bound parameters, and inserts at most FLEET_CHUNK posts.
import { randomBytes } from "node:crypto";
import { groupBindingName } from "../scripts/databases.mjs";
import { clonedPostColumns } from "./seed.mjs";

/**
 * Posts per INSERT statement. bench/seed.mjs clones 20,000 a statement into one site; here such statements
 * over hundreds of sites reset workerd's local D1 (ECONNRESET: a second statement of 20,000 in a small
 * Miniflare, one of 5,000 on the whole platform's workerd), so the fleet writes 1,000 at a time.
 */
export const FLEET_CHUNK = 1_000;
/** Sites per directory or projection statement (one JSON parameter each). */
export const SITE_CHUNK = 1_000;
/** Size factors cycled over the sites: five site sizes around the mean. */
export const SIZE_FACTORS = [0.5, 0.75, 1, 1.25, 1.5];
/** The fullest group's sites weigh this much more than the others'. */
export const FULLEST_WEIGHT = 2;
/** A site's post number i goes into the low 20 bits of its post ids' random part. */
export const MAX_POSTS_PER_SITE = 1 << 20;

/**
 * The group each of `n` new sites goes to, placed one after another by the worker's rule: the configured
 * group holding the fewest sites (`counts`, group → sites already placed), ties to the lowest name.
 */
export function placeSites(groups, counts, n) {
  const held = new Map(groups.map((g) => [g, counts.get(g) ?? 0]));
  const placed = [];
  for (let i = 0; i < n; i++) {
    let best = null;
    for (const g of [...groups].sort()) {
      if (best === null || held.get(g) < held.get(best)) best = g;
    }
    held.set(best, held.get(best) + 1);
    placed.push(best);
  }
  return placed;
}

/**
 * How many posts each new site gets (same order as `placement`), `total` in all: sites of `fullest`
 * weigh FULLEST_WEIGHT, each site a size factor of SIZE_FACTORS in turn. Every count < MAX_POSTS_PER_SITE.
 */
export function postCounts(placement, fullest, total) {
  const weights = placement.map(
    (g, i) => (g === fullest ? FULLEST_WEIGHT : 1) * SIZE_FACTORS[i % SIZE_FACTORS.length],
  );
  const sum = weights.reduce((a, b) => a + b, 0);
  const counts = weights.map((w) => Math.floor((total * w) / sum));
  let left = total - counts.reduce((a, b) => a + b, 0);
  for (let i = 0; left > 0; i = (i + 1) % counts.length, left--) counts[i] += 1;
  const over = counts.find((c) => c >= MAX_POSTS_PER_SITE);
  if (over !== undefined)
    throw new Error(`a fleet site would hold ${over} posts (max ${MAX_POSTS_PER_SITE - 1})`);
  return counts;
}

/** Splits `sites` ({ posts }) into runs of at most `limit` posts each (a bigger site alone in its run). */
export function chunkByPosts(sites, limit = FLEET_CHUNK) {
  const chunks = [];
  let current = [];
  let posts = 0;
  for (const site of sites) {
    if (current.length > 0 && posts + site.posts > limit) {
      chunks.push(current);
      current = [];
      posts = 0;
    }
    current.push(site);
    posts += site.posts;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
/** A ULID (Crockford base32: 48 bits of milliseconds, 80 random bits), as the services' ids. */
export function ulid(ms = Date.now()) {
  let time = "";
  for (let i = 9, t = ms; i >= 0; i--, t = Math.floor(t / 32)) time = CROCKFORD[t % 32] + time;
  const random = [...randomBytes(16)].map((b) => CROCKFORD[b % 32]).join("");
  return time + random;
}

/** Each group's site count in the directory. */
export async function directoryCounts(directory) {
  const { results } = await directory
    .prepare("SELECT group_name, COUNT(*) AS n FROM site_groups GROUP BY group_name")
    .all();
  return new Map(results.map((r) => [r.group_name, r.n]));
}

/** Each group's post count (one COUNT per group database). */
export async function groupPostCounts(mf, groups) {
  const out = {};
  for (const g of groups) {
    const db = await mf.getD1Database(groupBindingName(g), "content");
    out[g] = (await db.prepare("SELECT COUNT(*) AS n FROM posts").first()).n;
  }
  return out;
}

async function columnsOf(db, table) {
  const { results } = await db.prepare(`SELECT name FROM pragma_table_info('${table}')`).all();
  return results.map((r) => r.name);
}

/** `t`: one row whose columns are the JSON object `?n`'s members (a row of another group, as JSON). */
const jsonRow = (columns, param) =>
  `SELECT ${columns.map((c) => `json_extract(${param}, '$.${c}') AS ${c}`).join(", ")}`;

// Unique per group: a salt of the run (26 bits), the site's ordinal (14 bits), the post's number (20 bits).
const RANDOM = `CAST(?4 AS INTEGER) * 17179869184 + s.ord * ${MAX_POSTS_PER_SITE} + i`;

// A site's post i is dated one a minute from ?3 (ms), like bench/seed.mjs's clones.
const CLONED = {
  ...clonedPostColumns("?3", RANDOM),
  site_id: "s.site_id",
  title: "'Post number ' || i || ' of ' || s.slug",
};

/** The posts statement: ?1 the sites ([[id, slug, posts, ordinal], …]), ?2 the most posts of one, ?5 the template. */
function postsSql(columns) {
  for (const name of Object.keys(CLONED)) {
    if (!columns.includes(name)) throw new Error(`posts has no column ${name}: update bench/fleet-seed.mjs`);
  }
  return `WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < CAST(?2 AS INTEGER)),
  s AS (SELECT json_extract(value, '$[0]') AS site_id, json_extract(value, '$[1]') AS slug,
               CAST(json_extract(value, '$[2]') AS INTEGER) AS n, CAST(json_extract(value, '$[3]') AS INTEGER) AS ord
        FROM json_each(?1)),
  t AS (${jsonRow(columns, "?5")})
INSERT INTO posts (${columns.join(", ")})
SELECT ${columns.map((c) => CLONED[c] ?? `t.${c}`).join(",\n       ")}
FROM s JOIN seq ON seq.i <= s.n, t`;
}

/**
 * Seeds `sites` new sites and `posts` posts over the content groups `groups` of the stack `mf`, the
 * measured site `measured` ({ id, group, templateId }) giving the projection row and the template post.
 * Returns { placed: { group: sites }, posts: { group: posts } (the new ones), seconds }.
 */
export async function seedFleet(mf, { groups, measured, sites, posts, log = () => {} }) {
  const started = performance.now();
  const directory = await mf.getD1Database("DIRECTORY", "content");
  const home = await mf.getD1Database(groupBindingName(measured.group), "content");
  const siteRow = await home.prepare("SELECT * FROM sites WHERE id = ?").bind(measured.id).first();
  const template = await home.prepare("SELECT * FROM posts WHERE id = ?").bind(measured.templateId).first();
  if (!siteRow || !template) throw new Error("the measured site's projection or template post is missing");
  const placement = placeSites(groups, await directoryCounts(directory), sites);
  const counts = postCounts(placement, measured.group, posts);
  const tag = Date.now().toString(36);
  const now = new Date().toISOString();
  const fleet = placement.map((group, i) => ({
    id: ulid(),
    slug: `fleet-${tag}-${i}`,
    group,
    posts: counts[i],
    ordinal: i,
  }));
  // The directory first, as the worker places a site before anything is written in its group.
  for (let i = 0; i < fleet.length; i += SITE_CHUNK) {
    const part = fleet.slice(i, i + SITE_CHUNK).map((s) => [s.id, s.slug, s.group]);
    await directory
      .prepare(
        `INSERT INTO site_groups (site_id, slug, group_name, version, moving_to, placed_at, updated_at)
         SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]'), 1, NULL, ?2, ?2
         FROM json_each(?1)`,
      )
      .bind(JSON.stringify(part), now)
      .run();
  }
  const salt = randomBytes(4).readUInt32BE() >>> 6;
  const start = Date.now() - (MAX_POSTS_PER_SITE + 1) * 60_000;
  const placed = {};
  const seeded = {};
  for (const group of groups) {
    const db = await mf.getD1Database(groupBindingName(group), "content");
    const mine = fleet.filter((s) => s.group === group);
    placed[group] = mine.length;
    seeded[group] = 0;
    const siteColumns = await columnsOf(db, "sites");
    const overrides = {
      id: "json_extract(value, '$[0]')",
      slug: "json_extract(value, '$[1]')",
      name: "json_extract(value, '$[1]')",
    };
    const siteSql = `INSERT INTO sites (${siteColumns.join(", ")})
      SELECT ${siteColumns.map((c) => overrides[c] ?? `json_extract(?2, '$.${c}')`).join(", ")} FROM json_each(?1)`;
    for (let i = 0; i < mine.length; i += SITE_CHUNK) {
      const part = mine.slice(i, i + SITE_CHUNK).map((s) => [s.id, s.slug]);
      await db.prepare(siteSql).bind(JSON.stringify(part), JSON.stringify(siteRow)).run();
    }
    const sql = postsSql(await columnsOf(db, "posts"));
    for (const chunk of chunkByPosts(mine.filter((s) => s.posts > 0))) {
      const most = Math.max(...chunk.map((s) => s.posts));
      const json = JSON.stringify(chunk.map((s) => [s.id, s.slug, s.posts, s.ordinal]));
      await db.prepare(sql).bind(json, most, start, salt, JSON.stringify(template)).run();
      const before = seeded[group];
      seeded[group] += chunk.reduce((a, s) => a + s.posts, 0);
      if (Math.floor(seeded[group] / 50_000) > Math.floor(before / 50_000)) {
        log(
          `  fleet: ${group}: ${seeded[group]} posts (${Math.round((performance.now() - started) / 1000)} s)`,
        );
      }
    }
    log(
      `  fleet: ${group}: ${mine.length} sites, ${seeded[group]} posts (${Math.round((performance.now() - started) / 1000)} s)`,
    );
  }
  return { placed, posts: seeded, seconds: (performance.now() - started) / 1000 };
}
