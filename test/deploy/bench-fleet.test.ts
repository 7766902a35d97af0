/**
 * The bench's fleet section (issue 38): its bulk seed writes what the content worker would have written
 * (directory rows placed by the worker's rule, projections, posts with their search rows through the
 * migrations' triggers) into real D1 databases of the content migrations, with one group the fullest; and
 * the figures it reports (the longest refusal of a move's writers, the fleet's slowdown, a move's problems)
 * are computed as their labels say. The seed runs against a small Miniflare (no platform, no load).
 */
import { convertV4MiniflareOptions, Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  FLEET_KINDS,
  FLEET_ROUNDS,
  fencedWindow,
  fleetScale,
  longestRefusal,
  publishedSlugs,
  roundRows,
  withGroups,
} from "../../bench/fleet.mjs";
import {
  chunkByPosts,
  FLEET_CHUNK,
  MAX_POSTS_PER_SITE,
  placeSites,
  postCounts,
  seedFleet,
} from "../../bench/fleet-seed.mjs";
import { fleetSlowdown, moveProblems } from "../../bench/report.mjs";
import { applyMigrations } from "../../scripts/migrate.mjs";

describe("the fleet's placement and sizes", () => {
  it("places each site in the group holding the fewest sites, ties to the lowest name (groups.ts's rule)", () => {
    const counts = new Map([
      ["g000", 1],
      ["g001", 1],
    ]);
    expect(placeSites(["g000", "g001", "g002", "g003"], counts, 7)).toEqual([
      "g002",
      "g003",
      "g000",
      "g001",
      "g002",
      "g003",
      "g000",
    ]);
  });

  it("gives the sites exactly the posts asked, the fullest group's sites the most", () => {
    const placement = placeSites(["g000", "g001", "g002", "g003"], new Map(), 10_000);
    const counts = postCounts(placement, "g001", 980_000);
    expect(counts.reduce((a: number, b: number) => a + b, 0)).toBe(980_000);
    const byGroup: Record<string, number> = {};
    placement.forEach((g: string, i: number) => {
      byGroup[g] = (byGroup[g] ?? 0) + (counts[i] ?? 0);
    });
    const fullest = Object.entries(byGroup).sort((a, b) => b[1] - a[1])[0]?.[0];
    expect(fullest).toBe("g001");
    expect(byGroup.g001).toBeGreaterThan(1.8 * (byGroup.g000 ?? 0));
    expect(Math.min(...counts)).toBeGreaterThan(0);
  });

  it("refuses a site too big for its post ids' 20 bits", () => {
    expect(() => postCounts(["g000"], "g000", MAX_POSTS_PER_SITE)).toThrow(/max/);
  });

  it("cuts the sites into statements of at most FLEET_CHUNK posts (a bigger site alone)", () => {
    const sites = [5_000, 9_000, 7_000, 25_000, 1, 19_999].map((posts) => ({ posts }));
    const chunks = chunkByPosts(sites, 20_000);
    expect(chunks.flat()).toEqual(sites);
    for (const chunk of chunks) {
      const total = chunk.reduce((a: number, s: { posts: number }) => a + s.posts, 0);
      expect(total <= 20_000 || chunk.length === 1).toBe(true);
    }
    expect(chunks.map((c: unknown[]) => c.length)).toEqual([2, 1, 1, 2]);
    // At the default limit: as many sites a statement as fit in FLEET_CHUNK posts.
    const small = Array.from({ length: 100 }, () => ({ posts: 120 }));
    const per = Math.floor(FLEET_CHUNK / 120);
    const cut = chunkByPosts(small);
    expect(cut.flat()).toHaveLength(100);
    expect(cut.slice(0, -1).every((c: unknown[]) => c.length === per)).toBe(true);
    expect(cut.at(-1)?.length).toBe(100 - per * (cut.length - 1));
  });

  it("measures each round and site on slugs, since values and addresses of their own, all published", () => {
    for (const quick of [false, true]) {
      const scale = fleetScale(quick);
      const keys = { cold: ["ck"], public: ["pk"], write: ["wk"] };
      const rows = Array.from({ length: FLEET_ROUNDS }, (_, r) =>
        roundRows(r, { keys: { one: keys, fleet: keys }, scale, at: { one: "twin", fleet: "fleet" } }),
      ).flat();
      expect(rows).toHaveLength(FLEET_ROUNDS * (1 + 2 * FLEET_KINDS.length));
      expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
      const slugsOf = (row: (typeof rows)[number] | undefined): string[] =>
        (row?.spec.paths ?? []).map((p: string) => p.split("?")[0] ?? p);
      const details = rows.filter((r) => r.kind === "detail");
      const colds = rows.filter((r) => r.kind === "cold");
      // The twin and the measured site are different sites: one round's slug set serves both; rounds differ.
      for (let r = 0; r < FLEET_ROUNDS; r++) {
        const [a, b] = details.filter((d) => d.id.endsWith(`_r${r}`));
        expect(slugsOf(a)).toHaveLength(a?.spec.paths.length ?? -1);
        expect(slugsOf(a)).toEqual(slugsOf(b));
        for (const later of details.filter((d) => Number(d.id.slice(-1)) > r))
          expect(slugsOf(a).filter((s) => slugsOf(later).includes(s))).toEqual([]);
      }
      for (const d of details) {
        expect(d.spec.paths.length).toBeGreaterThanOrEqual(quick ? 500 : 1000);
        expect(slugsOf(d).every((s) => Number(s.split("-")[1]) % 20 !== 0)).toBe(true);
        expect(Math.max(...slugsOf(d).map((s) => Number(s.split("-")[1])))).toBeLessThan(scale.sitePosts);
      }
      const sinces = colds.flatMap((c) => c.spec.paths);
      expect(new Set(sinces).size).toBe(sinces.length);
      const offsets = details.map((d) => (d.spec.ip as { offset: number }).offset >> 20);
      expect(new Set(offsets).size).toBe(offsets.length);
      expect(Math.max(...offsets)).toBeLessThan(16);
      // Every measured row names its round's trivial route; which site goes first alternates by round.
      for (const row of rows.filter((r) => r.kind))
        expect(row.base).toBe(`fleet_trivial_r${row.id.slice(-1)}`);
      const firstOf = (r: number) => rows.find((x) => x.kind === "cold" && x.id.endsWith(`_r${r}`))?.id;
      expect(firstOf(0)).toBe("fleet_cold_one_r0");
      expect(firstOf(1)).toBe("fleet_cold_fleet_r1");
    }
    expect(() => roundRows(FLEET_ROUNDS, {} as never)).toThrow(/rounds/);
    expect(publishedSlugs(1, 20)).not.toContain("post-20");
  });

  it("gives the content Worker the groups as DB_G00n bindings and CONTENT_GROUPS, nothing else", () => {
    const adjust = withGroups(["g000", "g001", "g002"]);
    const content = adjust({
      name: "content",
      d1Databases: { DIRECTORY: { id: "content-directory" }, DB_G000: { id: "content-g000" } },
      bindings: { CONTENT_GROUPS: "g000,g001", OTHER: "x" },
    });
    expect(content.d1Databases).toEqual({
      DIRECTORY: { id: "content-directory" },
      DB_G000: { id: "content-g000" },
      DB_G001: { id: "content-g001" },
      DB_G002: { id: "content-g002" },
    });
    expect(content.bindings).toEqual({ CONTENT_GROUPS: "g000,g001,g002", OTHER: "x" });
    const sites = { name: "sites", bindings: { A: "b" } };
    expect(adjust(sites)).toBe(sites);
  });
});

describe("the move's longest refusal", () => {
  it("runs from a run's first 503 to the next accepted write, the longest run counted", () => {
    const answers = [
      { at: 0, status: 201 },
      { at: 100, status: 503 },
      { at: 150, status: 503 },
      { at: 400, status: 201 },
      { at: 500, status: 503 },
      { at: 550, status: 201 },
    ];
    expect(longestRefusal(answers)).toEqual({ longest_ms: 300, runs: 2 });
    // Out of order (several writers): sorted by the answers' times first.
    expect(longestRefusal([...answers].reverse())).toEqual({ longest_ms: 300, runs: 2 });
  });

  it("counts a run never followed by an accepted write up to the last answer, and none as 0", () => {
    expect(
      longestRefusal([
        { at: 0, status: 201 },
        { at: 10, status: 503 },
        { at: 900, status: 429 },
      ]),
    ).toEqual({ longest_ms: 890, runs: 1 });
    expect(longestRefusal([{ at: 0, status: 201 }])).toEqual({ longest_ms: 0, runs: 0 });
  });
});

describe("the window the mover's progress shows the site fenced", () => {
  it("runs from the answer of the first poll in copy to the asking of the last one", () => {
    const polls = [
      { asked: 0, answered: 5, phase: "mark" },
      { asked: 100, answered: 110, phase: "clear_target" },
      { asked: 200, answered: 220, phase: "copy" },
      { asked: 300, answered: 310, phase: "copy" },
      { asked: 400, answered: 410, phase: "switch" },
      { asked: 500, answered: 505, phase: "settle" },
    ];
    expect(fencedWindow(polls)).toEqual({ from: 110, until: 300 });
    expect(fencedWindow(polls.filter((p) => p.phase !== "copy" && p.phase !== "clear_target"))).toBeNull();
  });
});

describe("the fleet's targets", () => {
  const row = (id: string, rps: number, base?: string) => ({ id, rps, ...(base ? { base } : {}) });

  it("compares the twin's and the measured site's ratios round by round, and reports the medians", () => {
    const load = [
      row("fleet_trivial_r0", 1000),
      row("fleet_cold_one_r0", 300, "fleet_trivial_r0"),
      row("fleet_cold_fleet_r0", 200, "fleet_trivial_r0"),
      row("fleet_trivial_r1", 500),
      row("fleet_cold_fleet_r1", 100, "fleet_trivial_r1"),
      row("fleet_cold_one_r1", 110, "fleet_trivial_r1"),
      row("fleet_trivial_r2", 800),
      row("fleet_cold_one_r2", 240, "fleet_trivial_r2"),
      row("fleet_cold_fleet_r2", 200, "fleet_trivial_r2"),
      row("fleet_detail_one_r0", 100, "fleet_trivial_r0"),
    ];
    const s = fleetSlowdown(load, "cold");
    // Rounds: 1.5x, 1.1x, 1.2x; the median 1.2x, not a ratio of medians or of one round's trivial route.
    expect(s?.rounds.map((x) => Number(x.toFixed(3)))).toEqual([1.5, 1.1, 1.2]);
    expect(s?.slowdown).toBeCloseTo(1.2);
    expect(s?.one).toBeCloseTo(0.3);
    expect(s?.fleet).toBeCloseTo(0.2);
    // A kind with no round holding both rows has no slowdown.
    expect(fleetSlowdown(load, "detail")).toBeNull();
    expect(fleetSlowdown(load, "post")).toBeNull();
    // Two rounds: the mean of the middle two.
    expect(fleetSlowdown(load.slice(0, 6), "cold")?.slowdown).toBeCloseTo(1.3);
  });

  it("names every broken promise of a move", () => {
    const good = {
      state: "done",
      phase: "done",
      error: null,
      accepted: 10,
      accepted_present: 10,
      group_after: "g001",
      other: 0,
      other_statuses: {},
      refused_without_retry_after: 0,
      source_rows_left: 0,
      from: "g002",
      accepted_while_fenced: 0,
      fenced_window_ms: 2000,
    };
    expect(moveProblems(good)).toEqual([]);
    const bad = moveProblems({
      ...good,
      state: "rolled_back",
      accepted_present: 8,
      other: 1,
      other_statuses: { 500: 1 },
      refused_without_retry_after: 2,
      source_rows_left: 3,
      accepted_while_fenced: 4,
    });
    expect(bad).toHaveLength(6);
    expect(bad.join("; ")).toMatch(/4 write\(s\) accepted while the mover had fenced the site/);
    expect(bad.join("; ")).toMatch(/2 accepted write\(s\) missing from g001/);
  });
});

describe("the bulk seed on content's migrations", () => {
  const groups = ["g000", "g001"];
  let mf: Miniflare;

  beforeAll(async () => {
    mf = new Miniflare(
      convertV4MiniflareOptions({
        modules: true,
        script: "export default { fetch() { return new Response('ok'); } }",
        d1Databases: {
          DIRECTORY: { id: "content-directory" },
          DB_G000: { id: "content-g000" },
          DB_G001: { id: "content-g001" },
        },
      }),
    );
    await applyMigrations(await mf.getD1Database("DIRECTORY"), "content-directory");
    for (const g of groups) await applyMigrations(await mf.getD1Database(`DB_${g.toUpperCase()}`), "content");
    // The measured site, as content holds it after the API made it: directory row, projection, one post.
    const now = new Date().toISOString();
    const directory = await mf.getD1Database("DIRECTORY");
    await directory
      .prepare(
        "INSERT INTO site_groups (site_id, slug, group_name, placed_at, updated_at) VALUES ('S1', 'measured', 'g001', ?1, ?1), ('S0', 'demo', 'g000', ?1, ?1)",
      )
      .bind(now)
      .run();
    const home = await mf.getD1Database("DB_G001");
    await home
      .prepare(
        "INSERT INTO sites (id, org_id, slug, name, default_language, status, updated_at, synced_at) VALUES ('S1', 'O1', 'measured', 'Measured', 'en', 'active', ?1, ?1)",
      )
      .bind(now)
      .run();
    await home
      .prepare(
        `INSERT INTO posts (id, site_id, slug, language, title, summary, blocks_json, status, published_at, seo_json, created_at, updated_at)
         VALUES ('T1', 'S1', 'bench-template', 'en', 'Template', 'Summary', ?2, 'published', ?1, '{"category_slugs":["news"]}', ?1, ?1)`,
      )
      .bind(
        now,
        JSON.stringify({ blocks: [{ type: "paragraph", data: { text: "A searchable paragraph word" } }] }),
      )
      .run();
  });

  afterAll(async () => {
    await mf?.dispose();
  });

  it("writes the directory, projections, posts and their search rows, the measured group the fullest", async () => {
    const mfAny = { getD1Database: (binding: string) => mf.getD1Database(binding) };
    const result = await seedFleet(mfAny, {
      groups,
      measured: { id: "S1", group: "g001", templateId: "T1" },
      sites: 31,
      posts: 4_001,
    });
    // Placement: the rule over the two sites already there (one each): alternate from g000.
    expect(result.placed).toEqual({ g000: 16, g001: 15 });
    const seeded = { g000: result.posts.g000 ?? 0, g001: result.posts.g001 ?? 0 };
    expect(seeded.g000 + seeded.g001).toBe(4_001);
    expect(seeded.g001).toBeGreaterThan(seeded.g000);
    const directory = await mf.getD1Database("DIRECTORY");
    const placed = await directory
      .prepare("SELECT group_name, COUNT(*) AS n FROM site_groups GROUP BY group_name ORDER BY group_name")
      .all();
    expect(placed.results).toEqual([
      { group_name: "g000", n: 17 },
      { group_name: "g001", n: 16 },
    ]);
    for (const g of groups) {
      const db = await mf.getD1Database(`DB_${g.toUpperCase()}`);
      const expected = (result.posts[g] ?? 0) + (g === "g001" ? 1 : 0);
      const count = async (sql: string) => (await db.prepare(sql).first<{ n: number }>())?.n ?? -1;
      expect(await count("SELECT COUNT(*) AS n FROM posts")).toBe(expected);
      // posts_fts reads its text from posts: its index answers for every clone's title.
      expect(await count("SELECT COUNT(*) AS n FROM posts_fts WHERE posts_fts MATCH 'number'")).toBe(
        result.posts[g] ?? 0,
      );
      expect(await count("SELECT COUNT(*) AS n FROM posts_search")).toBe(expected);
      expect(await count("SELECT COUNT(*) AS n FROM post_revisions")).toBe(expected);
      // Every post's site has its projection here and its directory row names this group.
      expect(await count("SELECT COUNT(*) AS n FROM posts WHERE site_id NOT IN (SELECT id FROM sites)")).toBe(
        0,
      );
      const ids = (await db.prepare("SELECT id FROM sites").all<{ id: string }>()).results.map(
        (r: { id: string }) => r.id,
      );
      const rows = await directory
        .prepare(
          "SELECT DISTINCT group_name FROM site_groups WHERE site_id IN (SELECT value FROM json_each(?))",
        )
        .bind(JSON.stringify(ids))
        .all<{ group_name: string }>();
      expect(rows.results).toEqual([{ group_name: g }]);
      // Ids as the API makes them (26 Crockford characters), the org and the template's blocks cloned.
      const bad = await count(
        "SELECT COUNT(*) AS n FROM posts WHERE id <> 'T1' AND (length(id) <> 26 OR id GLOB '*[ILOU]*' OR org_id IS NOT 'O1')",
      );
      expect(bad).toBe(0);
      expect(
        await count("SELECT COUNT(*) AS n FROM posts_search WHERE posts_search MATCH 'searchable'"),
      ).toBe(expected);
      expect(
        await count("SELECT COUNT(*) AS n FROM posts WHERE slug = 'post-20' AND status <> 'draft'"),
      ).toBe(0);
    }
  });
});
