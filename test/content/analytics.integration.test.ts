import { describe, expect, it } from "vitest";
import {
  analyticsTenant,
  BROWSER_UA,
  beacon,
  daysAgo,
  freshIp,
  OTHER_BROWSER_UA,
  seedDay,
  utcToday,
  view,
} from "../support/analytics-helpers";
import { contentDbOf } from "../support/content-groups";
import { call, content, createKey, createPost, ORIGIN, problem } from "../support/content-helpers";

interface Summary {
  window: { from: string; to: string; days: number };
  totals: { views: number; visitors: number; bot_views: number };
  series: { date: string; views: number; visitors: number; bot_views: number }[];
  top_paths: { path: string; views: number; visitors: number }[];
  top_referrers: { host: string; views: number }[];
}

interface PostsPage {
  window: { from: string; to: string; days: number };
  items: {
    path: string;
    views: number;
    visitors: number;
    post: { id: string; slug: string; title: string; language: string; post_type: string } | null;
  }[];
  total: number;
  limit: number;
  offset: number;
}

async function summary(ck: string, query = ""): Promise<Summary> {
  const res = await call("GET", `/v1/analytics/summary${query}`, { key: ck });
  if (res.status !== 200) throw new Error(`summary: ${res.status} ${await res.text()}`);
  return (await res.json()) as Summary;
}

async function postsPage(ck: string, query = ""): Promise<PostsPage> {
  const res = await call("GET", `/v1/analytics/posts${query}`, { key: ck });
  if (res.status !== 200) throw new Error(`posts: ${res.status} ${await res.text()}`);
  return (await res.json()) as PostsPage;
}

describe("POST /v1/analytics/collect", () => {
  it("counts a browser's views (204): views per view, a visitor once per day, per path and for the site", async () => {
    const t = await analyticsTenant();
    const a = { ip: freshIp(), userAgent: BROWSER_UA };
    const b = { ip: freshIp(), userAgent: OTHER_BROWSER_UA };
    await view(t.pk, "/hello", a);
    await view(t.pk, "/hello", a);
    await view(t.pk, "/hello", a);
    await view(t.pk, "/hello", b);
    await view(t.pk, "/about", a);
    const s = await summary(t.ck);
    expect(s.totals).toEqual({ views: 5, visitors: 2, bot_views: 0 });
    expect(s.series.at(-1)).toEqual({ date: utcToday(), views: 5, visitors: 2, bot_views: 0 });
    expect(s.top_paths).toEqual([
      { path: "/hello", views: 4, visitors: 2 },
      { path: "/about", views: 1, visitors: 1 },
    ]);
  });

  it("the same IP with another browser is another visitor; the same browser on another IP too", async () => {
    const t = await analyticsTenant();
    const ip = freshIp();
    await view(t.pk, "/", { ip, userAgent: BROWSER_UA });
    await view(t.pk, "/", { ip, userAgent: OTHER_BROWSER_UA });
    await view(t.pk, "/", { ip: freshIp(), userAgent: BROWSER_UA });
    expect((await summary(t.ck)).totals).toMatchObject({ views: 3, visitors: 3 });
  });

  it("accepts the key in Authorization and an application/json body; the site is the key's, never the body's", async () => {
    const t = await analyticsTenant();
    const other = await analyticsTenant();
    // A body naming a site is refused, the member named (issue 33: nothing is dropped silently).
    const naming = await beacon(t.pk, "/x", {
      keyInHeader: true,
      contentType: "application/json",
      body: JSON.stringify({ path: "/x", site_id: other.site.id }),
    });
    expect(naming.status).toBe(400);
    expect(await naming.json()).toMatchObject({
      code: "BAD_REQUEST",
      details: { path: "site_id", unknown: ["site_id"] },
    });
    const res = await beacon(t.pk, "/x", { keyInHeader: true, contentType: "application/json" });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe(ORIGIN);
    expect((await summary(t.ck)).totals.views).toBe(1);
    expect((await summary(other.ck)).totals.views).toBe(0);
  });

  it("keeps the path without query and fragment, one page with or without a trailing slash", async () => {
    const t = await analyticsTenant();
    await view(t.pk, "/post?email=someone@example.test#top", { ip: freshIp() });
    await view(t.pk, "/post/", { ip: freshIp() });
    await view(t.pk, "/", { ip: freshIp() });
    const s = await summary(t.ck);
    expect(s.top_paths).toEqual([
      { path: "/post", views: 2, visitors: 2 },
      { path: "/", views: 1, visitors: 1 },
    ]);
    const stored = await (await contentDbOf(t.site.id))
      .prepare("SELECT path FROM analytics_paths_daily WHERE site_id = ?")
      .bind(t.site.id)
      .all<{ path: string }>();
    expect(JSON.stringify(stored.results)).not.toContain("someone");
  });

  it("counts another site's referrer by host only; the site's own pages and unreadable referrers are no referrer", async () => {
    const t = await analyticsTenant();
    await view(t.pk, "/a", { ip: freshIp(), referrer: "https://www.search.example/q?term=private+words" });
    await view(t.pk, "/a", { ip: freshIp(), referrer: "https://www.search.example/other" });
    await view(t.pk, "/a", { ip: freshIp(), referrer: `${ORIGIN}/previous-page` });
    await view(t.pk, "/a", { ip: freshIp(), referrer: "not a url" });
    await view(t.pk, "/a", { ip: freshIp(), referrer: "javascript:alert(1)" });
    const s = await summary(t.ck);
    expect(s.totals.views).toBe(5);
    expect(s.top_referrers).toEqual([{ host: "www.search.example", views: 2 }]);
  });

  it("a body that is no page view is 400 INVALID_PAGE_VIEW and counts nothing", async () => {
    const t = await analyticsTenant();
    for (const body of [
      "not json",
      "[]",
      "null",
      JSON.stringify({}),
      JSON.stringify({ path: "relative" }),
      JSON.stringify({ path: "//evil.example/x" }),
      JSON.stringify({ path: "/with space" }),
      JSON.stringify({ path: `/${"a".repeat(600)}` }),
      JSON.stringify({ path: 42 }),
      JSON.stringify({ path: "/x", referrer: "r".repeat(5000) }),
    ]) {
      const res = await beacon(t.pk, "/", { body, ip: freshIp() });
      expect(res.status, body.slice(0, 40)).toBe(400);
      expect((await problem(res)).code).toBe("INVALID_PAGE_VIEW");
    }
    expect((await summary(t.ck)).totals).toEqual({ views: 0, visitors: 0, bot_views: 0 });
  });
});

describe("bots are never in the human numbers", () => {
  const botAgents: [string, string | null][] = [
    ["no user agent", null],
    ["an empty user agent", ""],
    ["a crawler", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"],
    [
      "an AI crawler",
      "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)",
    ],
    ["a link preview", "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)"],
    [
      "a headless browser",
      "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/126.0.0.0 Safari/537.36",
    ],
    ["a command-line client", "curl/8.7.1"],
    ["an HTTP library", "python-requests/2.32.3"],
    ["a user agent that is no browser's", "MyScraper"],
    [
      "a performance probe",
      "Mozilla/5.0 (Linux; Android 11; moto g power (2022)) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36 Chrome-Lighthouse",
    ],
  ];
  for (const [name, userAgent] of botAgents) {
    it(`${name}: 204, counted in bot_views only`, async () => {
      const t = await analyticsTenant();
      const res = await beacon(t.pk, "/page", { userAgent, ip: freshIp() });
      expect(res.status).toBe(204);
      const s = await summary(t.ck);
      expect(s.totals).toEqual({ views: 0, visitors: 0, bot_views: 1 });
      expect(s.top_paths).toEqual([]);
    });
  }

  for (const [header, value] of [
    ["sec-purpose", "prefetch;prerender"],
    ["sec-purpose", "prefetch"],
    ["purpose", "prefetch"],
    ["x-purpose", "preview"],
    ["x-moz", "prefetch"],
  ] as const) {
    it(`a speculative load (${header}: ${value}) is no view at all: 204, counted nowhere`, async () => {
      const t = await analyticsTenant();
      const res = await beacon(t.pk, "/page", { ip: freshIp(), headers: { [header]: value } });
      expect(res.status).toBe(204);
      expect((await summary(t.ck)).totals).toEqual({ views: 0, visitors: 0, bot_views: 0 });
    });
  }

  it("a phone whose brand ends in 'bot' (CUBOT) is a person", async () => {
    const t = await analyticsTenant();
    await view(t.pk, "/", {
      ip: freshIp(),
      userAgent:
        "Mozilla/5.0 (Linux; Android 10; CUBOT P40) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36",
    });
    expect((await summary(t.ck)).totals).toEqual({ views: 1, visitors: 1, bot_views: 0 });
  });
});

describe("GET /v1/analytics/summary: the window", () => {
  it("defaults to the last 30 days, today included; the series has every day, zeros included", async () => {
    const t = await analyticsTenant();
    await seedDay(t.site.id, daysAgo(29), { views: 3, visitors: 2, bot_views: 1 });
    await seedDay(t.site.id, daysAgo(30), { views: 100, visitors: 100 });
    const s = await summary(t.ck);
    expect(s.window).toEqual({ from: daysAgo(29), to: utcToday(), days: 30 });
    expect(s.series).toHaveLength(30);
    expect(s.series[0]).toEqual({ date: daysAgo(29), views: 3, visitors: 2, bot_views: 1 });
    expect(s.series.slice(1).every((d) => d.views === 0 && d.visitors === 0)).toBe(true);
    expect(s.totals).toEqual({ views: 3, visitors: 2, bot_views: 1 });
  });

  it("days=1 is today only; days=365 reaches 364 days back", async () => {
    const t = await analyticsTenant();
    await seedDay(t.site.id, daysAgo(1), { views: 7, visitors: 7 });
    await seedDay(t.site.id, daysAgo(364), { views: 5, visitors: 5 });
    await seedDay(t.site.id, daysAgo(365), { views: 11, visitors: 11 });
    const one = await summary(t.ck, "?days=1");
    expect(one.window).toEqual({ from: utcToday(), to: utcToday(), days: 1 });
    expect(one.series).toHaveLength(1);
    expect(one.totals.views).toBe(0);
    const year = await summary(t.ck, "?days=365");
    expect(year.window).toEqual({ from: daysAgo(364), to: utcToday(), days: 365 });
    expect(year.series).toHaveLength(365);
    expect(year.totals.views).toBe(12);
  });

  it("days outside 1..365 or not an integer is 400 INVALID_WINDOW", async () => {
    const t = await analyticsTenant();
    for (const days of ["0", "366", "abc", "-1", "1.5", "", "1e2", "0030"]) {
      const res = await call("GET", `/v1/analytics/summary?days=${days}`, { key: t.ck });
      expect(res.status, days).toBe(400);
      expect((await problem(res)).code).toBe("INVALID_WINDOW");
    }
  });

  it("from/to take precedence over days (even a malformed days), and to is inclusive", async () => {
    const t = await analyticsTenant();
    await seedDay(t.site.id, "2025-03-01", { views: 1, visitors: 1, paths: { "/first": [1, 1] } });
    await seedDay(t.site.id, "2025-03-10", { views: 10, visitors: 4, paths: { "/last": [10, 4] } });
    await seedDay(t.site.id, "2025-03-11", { views: 100, visitors: 50, paths: { "/after": [100, 50] } });
    const s = await summary(t.ck, "?from=2025-03-01&to=2025-03-10&days=abc");
    expect(s.window).toEqual({ from: "2025-03-01", to: "2025-03-10", days: 10 });
    expect(s.series.map((d) => d.date)).toEqual([
      "2025-03-01",
      "2025-03-02",
      "2025-03-03",
      "2025-03-04",
      "2025-03-05",
      "2025-03-06",
      "2025-03-07",
      "2025-03-08",
      "2025-03-09",
      "2025-03-10",
    ]);
    expect(s.totals).toEqual({ views: 11, visitors: 5, bot_views: 0 });
    expect(s.top_paths).toEqual([
      { path: "/last", views: 10, visitors: 4 },
      { path: "/first", views: 1, visitors: 1 },
    ]);
    const same = await summary(t.ck, "?from=2025-03-10&to=2025-03-10&days=7");
    expect(same.window).toEqual({ from: "2025-03-10", to: "2025-03-10", days: 1 });
    expect(same.totals.views).toBe(10);
  });

  it("only from: up to today; only to: the 30 days ending there", async () => {
    const t = await analyticsTenant();
    expect((await summary(t.ck, `?from=${daysAgo(2)}`)).window).toEqual({
      from: daysAgo(2),
      to: utcToday(),
      days: 3,
    });
    expect((await summary(t.ck, "?to=2025-03-31")).window).toEqual({
      from: "2025-03-02",
      to: "2025-03-31",
      days: 30,
    });
  });

  it("a bad date, from after to, or more than 366 days is 400 INVALID_WINDOW; exactly 366 is served", async () => {
    const t = await analyticsTenant();
    for (const query of [
      "from=2025-02-30&to=2025-03-01",
      "from=2025-1-01&to=2025-03-01",
      "from=20250101",
      "to=2025-13-01",
      "from=&to=2025-03-01",
      "from=2025-03-02&to=2025-03-01",
      "from=2024-01-01&to=2025-01-01",
      "from=1969-12-31&to=1970-01-02",
    ]) {
      const res = await call("GET", `/v1/analytics/summary?${query}`, { key: t.ck });
      expect(res.status, query).toBe(400);
      expect((await problem(res)).code).toBe("INVALID_WINDOW");
    }
    const leapYear = await summary(t.ck, "?from=2024-01-01&to=2024-12-31");
    expect(leapYear.window.days).toBe(366);
    expect(leapYear.series).toHaveLength(366);
  });

  it("visitors over several days are the sum of the daily unique visitors", async () => {
    const t = await analyticsTenant();
    await seedDay(t.site.id, "2025-05-01", { views: 2, visitors: 1, paths: { "/a": [2, 1] } });
    await seedDay(t.site.id, "2025-05-02", { views: 3, visitors: 2, paths: { "/a": [3, 2] } });
    const s = await summary(t.ck, "?from=2025-05-01&to=2025-05-02");
    expect(s.totals).toMatchObject({ views: 5, visitors: 3 });
    expect(s.top_paths).toEqual([{ path: "/a", views: 5, visitors: 3 }]);
  });

  it("top_paths holds the 10 most viewed, by views then visitors then path", async () => {
    const t = await analyticsTenant();
    const paths: Record<string, [number, number]> = {};
    for (let i = 1; i <= 12; i++) paths[`/p${String(i).padStart(2, "0")}`] = [i, 1];
    paths["/tie-b"] = [12, 2];
    paths["/tie-a"] = [12, 2];
    await seedDay(t.site.id, "2025-06-01", { views: 100, visitors: 10, paths });
    const s = await summary(t.ck, "?from=2025-06-01&to=2025-06-01");
    expect(s.top_paths.map((p) => p.path)).toEqual([
      "/tie-a",
      "/tie-b",
      "/p12",
      "/p11",
      "/p10",
      "/p09",
      "/p08",
      "/p07",
      "/p06",
      "/p05",
    ]);
  });
});

describe("GET /v1/analytics/posts", () => {
  it("maps /{slug} (default language) and /{language}/{slug} to their posts; other pages have post null", async () => {
    const t = await analyticsTenant();
    const hello = await createPost(t.ck, { title: "Hello", slug: "hello", status: "published" });
    const ola = await createPost(t.ck, { title: "Olá", slug: "ola", language: "pt-BR", status: "published" });
    const page = await createPost(t.ck, {
      title: "About",
      slug: "about",
      post_type: "page",
      status: "published",
    });
    await seedDay(t.site.id, "2025-04-01", {
      views: 20,
      visitors: 10,
      paths: {
        "/hello": [9, 5],
        "/pt-BR/ola": [5, 3],
        "/about": [3, 3],
        "/": [2, 2],
        "/ola": [1, 1],
        "/en/hello": [1, 1],
        "/pt-br/ola": [1, 1],
        "/no-such-post": [1, 1],
      },
    });
    const p = await postsPage(t.ck, "?from=2025-04-01&to=2025-04-01");
    expect(p.total).toBe(8);
    expect(p.items.map((i) => [i.path, i.post?.id ?? null])).toEqual([
      ["/hello", hello.id],
      ["/pt-BR/ola", ola.id],
      ["/about", page.id],
      ["/", null],
      ["/en/hello", null],
      ["/no-such-post", null],
      ["/ola", null],
      ["/pt-br/ola", null],
    ]);
    expect(p.items[0]).toEqual({
      path: "/hello",
      views: 9,
      visitors: 5,
      post: { id: hello.id, slug: "hello", title: "Hello", language: "en", post_type: "post" },
    });
    expect(p.items[1]!.post).toMatchObject({ slug: "ola", language: "pt-BR", title: "Olá" });
    expect(p.items[2]!.post).toMatchObject({ post_type: "page" });
  });

  it("a deleted post maps to nothing; an archived one still has its numbers", async () => {
    const t = await analyticsTenant();
    const gone = await createPost(t.ck, { title: "Gone", slug: "gone", status: "published" });
    const old = await createPost(t.ck, { title: "Old", slug: "old", status: "published" });
    await (await contentDbOf(t.site.id))
      .prepare("UPDATE posts SET status = 'deleted' WHERE id = ?")
      .bind(gone.id)
      .run();
    expect((await call("POST", `/v1/posts/${old.id}/unpublish`, { key: t.ck })).status).toBe(200);
    await seedDay(t.site.id, "2025-04-02", {
      views: 2,
      visitors: 2,
      paths: { "/gone": [1, 1], "/old": [1, 1] },
    });
    const p = await postsPage(t.ck, "?from=2025-04-02&to=2025-04-02");
    expect(p.items.map((i) => [i.path, i.post?.id ?? null])).toEqual([
      ["/gone", null],
      ["/old", old.id],
    ]);
  });

  it("is the summary's top_paths ranking, paged by limit and offset", async () => {
    const t = await analyticsTenant();
    const paths: Record<string, [number, number]> = {};
    for (let i = 1; i <= 25; i++) paths[`/p${String(i).padStart(2, "0")}`] = [i, 1];
    await seedDay(t.site.id, "2025-04-03", { views: 325, visitors: 25, paths });
    const window = "from=2025-04-03&to=2025-04-03";
    const s = await summary(t.ck, `?${window}`);
    const first = await postsPage(t.ck, `?${window}&limit=10`);
    expect(first.items.map(({ path, views, visitors }) => ({ path, views, visitors }))).toEqual(s.top_paths);
    const second = await postsPage(t.ck, `?${window}&limit=10&offset=10`);
    expect(second.items.map((i) => i.path)).toEqual([
      "/p15",
      "/p14",
      "/p13",
      "/p12",
      "/p11",
      "/p10",
      "/p09",
      "/p08",
      "/p07",
      "/p06",
    ]);
    expect(second).toMatchObject({ total: 25, limit: 10, offset: 10 });
    const past = await postsPage(t.ck, `?${window}&offset=25`);
    expect(past.items).toEqual([]);
    expect(past.total).toBe(25);
    const defaults = await postsPage(t.ck, `?${window}`);
    expect(defaults).toMatchObject({ limit: 50, offset: 0 });
    expect(defaults.items).toHaveLength(25);
  });

  it("limit 1 and 200 are served; 0, 201 and non-integers are 400 INVALID_LIMIT", async () => {
    const t = await analyticsTenant();
    expect((await postsPage(t.ck, "?limit=1")).limit).toBe(1);
    expect((await postsPage(t.ck, "?limit=200")).limit).toBe(200);
    for (const limit of ["0", "201", "abc", "-1", "2.5", ""]) {
      const res = await call("GET", `/v1/analytics/posts?limit=${limit}`, { key: t.ck });
      expect(res.status, limit).toBe(400);
      expect((await problem(res)).code).toBe("INVALID_LIMIT");
    }
  });

  it("offset 0 is served; a negative or non-integer offset is 400 INVALID_OFFSET", async () => {
    const t = await analyticsTenant();
    expect((await postsPage(t.ck, "?offset=0")).offset).toBe(0);
    expect((await postsPage(t.ck, "?offset=1000000")).offset).toBe(1_000_000);
    for (const offset of ["-1", "abc", "1.5", "", "1000001"]) {
      const res = await call("GET", `/v1/analytics/posts?offset=${offset}`, { key: t.ck });
      expect(res.status, offset).toBe(400);
      expect((await problem(res)).code).toBe("INVALID_OFFSET");
    }
  });

  it("takes the same window: days bounds and from/to precedence", async () => {
    const t = await analyticsTenant();
    expect((await postsPage(t.ck, "?days=1")).window.days).toBe(1);
    expect((await postsPage(t.ck, "?days=365")).window.days).toBe(365);
    expect((await call("GET", "/v1/analytics/posts?days=0", { key: t.ck })).status).toBe(400);
    expect((await call("GET", "/v1/analytics/posts?days=366", { key: t.ck })).status).toBe(400);
    expect((await postsPage(t.ck, "?from=2025-01-01&to=2025-01-31&days=abc")).window).toEqual({
      from: "2025-01-01",
      to: "2025-01-31",
      days: 31,
    });
  });
});

describe("GET /v1/export?resource=analytics", () => {
  async function exported(ck: string, query: string) {
    const res = await call("GET", `/v1/export?resource=analytics${query}`, { key: ck });
    expect(res.status, await res.clone().text()).toBe(200);
    return { res, text: await res.text() };
  }

  it("NDJSON by default: the time series, one line per day of the window, zeros included", async () => {
    const t = await analyticsTenant();
    await seedDay(t.site.id, "2025-02-02", { views: 4, visitors: 3, bot_views: 2 });
    const { res, text } = await exported(t.ck, "&from=2025-02-01&to=2025-02-03");
    expect(res.headers.get("content-type")).toBe("application/x-ndjson");
    expect(res.headers.get("content-disposition")).toBe(
      `attachment; filename="analytics-day-${t.site.id}-2025-02-01-2025-02-03.ndjson"`,
    );
    expect(res.headers.get("cache-control")).toBe("private, no-store");
    expect(
      text
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l)),
    ).toEqual([
      { date: "2025-02-01", views: 0, visitors: 0, bot_views: 0 },
      { date: "2025-02-02", views: 4, visitors: 3, bot_views: 2 },
      { date: "2025-02-03", views: 0, visitors: 0, bot_views: 0 },
    ]);
    const explicit = await exported(t.ck, "&format=ndjson&from=2025-02-01&to=2025-02-03");
    expect(explicit.text).toBe(text);
  });

  it("CSV: a header row and flat columns", async () => {
    const t = await analyticsTenant();
    await seedDay(t.site.id, "2025-02-02", { views: 4, visitors: 3, bot_views: 2 });
    const { res, text } = await exported(t.ck, "&format=csv&from=2025-02-02&to=2025-02-03");
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toContain(".csv");
    expect(text).toBe("date,views,visitors,bot_views\r\n2025-02-02,4,3,2\r\n2025-02-03,0,0,0\r\n");
  });

  it("group=path: one line per day and path with views, by day then path (NDJSON and CSV, quoted when needed)", async () => {
    const t = await analyticsTenant();
    await seedDay(t.site.id, "2025-02-01", {
      views: 3,
      visitors: 2,
      paths: { "/b": [1, 1], "/a,b": [2, 1] },
    });
    await seedDay(t.site.id, "2025-02-03", { views: 1, visitors: 1, paths: { '/q"x': [1, 1] } });
    const nd = await exported(t.ck, "&group=path&from=2025-02-01&to=2025-02-03");
    expect(
      nd.text
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l)),
    ).toEqual([
      { date: "2025-02-01", path: "/a,b", views: 2, visitors: 1 },
      { date: "2025-02-01", path: "/b", views: 1, visitors: 1 },
      { date: "2025-02-03", path: '/q"x', views: 1, visitors: 1 },
    ]);
    const csv = await exported(t.ck, "&group=path&format=csv&from=2025-02-01&to=2025-02-03");
    expect(csv.text).toBe(
      'date,path,views,visitors\r\n2025-02-01,"/a,b",2,1\r\n2025-02-01,/b,1,1\r\n2025-02-03,"/q""x",1,1\r\n',
    );
  });

  it("group=path streams past one page of rows", async () => {
    const t = await analyticsTenant();
    const paths: Record<string, [number, number]> = {};
    for (let i = 0; i < 1200; i++) paths[`/p${String(i).padStart(4, "0")}`] = [1, 1];
    const entries = Object.entries(paths);
    for (let i = 0; i < entries.length; i += 400) {
      await seedDay(t.site.id, `2025-07-0${1 + i / 400}`, {
        views: 400,
        visitors: 400,
        paths: Object.fromEntries(entries.slice(i, i + 400)),
      });
    }
    // Same 400 paths on three days would collide in seedDay; each day has its own slice instead.
    const { text } = await exported(t.ck, "&group=path&from=2025-07-01&to=2025-07-03");
    const lines = text
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as { date: string; path: string });
    expect(lines).toHaveLength(1200);
    expect(lines[0]).toMatchObject({ date: "2025-07-01", path: "/p0000" });
    expect(lines[1199]).toMatchObject({ date: "2025-07-03", path: "/p1199" });
  });

  it("the window follows the summary's rules: days default 30, bounds, from/to precedence", async () => {
    const t = await analyticsTenant();
    expect((await exported(t.ck, "")).text.trimEnd().split("\n")).toHaveLength(30);
    expect((await exported(t.ck, "&days=1")).text.trimEnd().split("\n")).toHaveLength(1);
    expect((await exported(t.ck, "&days=365")).text.trimEnd().split("\n")).toHaveLength(365);
    expect(
      (await exported(t.ck, "&from=2025-01-01&to=2025-01-02&days=0")).text.trimEnd().split("\n"),
    ).toHaveLength(2);
    for (const query of [
      "&days=0",
      "&days=366",
      "&from=2025-01-02&to=2025-01-01",
      "&group=week",
      "&format=xml",
    ]) {
      const res = await call("GET", `/v1/export?resource=analytics${query}`, { key: t.ck });
      expect(res.status, query).toBe(400);
    }
  });
});

describe("retention (the hourly cron)", () => {
  it("deletes visitor ids and salts of past days, keeps today's and every rollup", async () => {
    const t = await analyticsTenant();
    await view(t.pk, "/today", { ip: freshIp() });
    const old = daysAgo(1);
    await (await contentDbOf(t.site.id)).batch([
      (await contentDbOf(t.site.id))
        .prepare(
          "INSERT INTO analytics_visitors (site_id, day, visitor_id, path) VALUES (?, ?, 'old-visitor', '/old')",
        )
        .bind(t.site.id, old),
      (await contentDbOf(t.site.id))
        .prepare("INSERT OR IGNORE INTO analytics_salts (day, salt, created_at) VALUES (?, 'old-salt', ?)")
        .bind(old, new Date().toISOString()),
    ]);
    await seedDay(t.site.id, old, { views: 1, visitors: 1, paths: { "/old": [1, 1] } });

    await content.scheduled({ cron: "30 * * * *" });

    const visitors = await (await contentDbOf(t.site.id))
      .prepare("SELECT day FROM analytics_visitors WHERE site_id = ?")
      .bind(t.site.id)
      .all<{ day: string }>();
    expect(visitors.results.map((r) => r.day)).toEqual([utcToday()]);
    const salts = await (await contentDbOf(t.site.id))
      .prepare("SELECT day FROM analytics_salts")
      .all<{ day: string }>();
    expect(salts.results.map((r) => r.day)).toEqual([utcToday()]);
    const s = await summary(t.ck, "?days=2");
    expect(s.totals).toMatchObject({ views: 2, visitors: 2 });
    expect(s.top_paths.map((p) => p.path).sort()).toEqual(["/old", "/today"]);
  });

  it("a view after the purge still counts today's returning visitor once", async () => {
    const t = await analyticsTenant();
    const ip = freshIp();
    await view(t.pk, "/", { ip });
    await content.scheduled({ cron: "30 * * * *" });
    await view(t.pk, "/", { ip });
    expect((await summary(t.ck)).totals).toMatchObject({ views: 2, visitors: 1 });
  });
});

describe("the OpenAPI document", () => {
  it("lists the analytics operations with their security", async () => {
    const doc = (await (await call("GET", "/openapi.json")).json()) as {
      paths: Record<string, Record<string, { security?: Record<string, string[]>[] }>>;
    };
    expect(doc.paths["/v1/analytics/collect"]?.post?.security).toEqual([
      { publicReadKey: [] },
      { publicKeyQuery: [] },
    ]);
    expect(doc.paths["/v1/analytics/summary"]?.get?.security).toEqual([{ apiKey: ["analytics:read"] }]);
    expect(doc.paths["/v1/analytics/posts"]?.get?.security).toEqual([{ apiKey: ["analytics:read"] }]);
    expect(doc.paths["/v1/export"]?.get?.security).toContainEqual({ apiKey: ["export", "analytics:read"] });
  });
});

describe("a key of the site may read; the numbers are the key's site's", () => {
  it("a ck_ key with only analytics:read reads the summary and the posts", async () => {
    const t = await analyticsTenant();
    const reader = await createKey(t.site, { scopes: ["analytics:read"] });
    expect((await call("GET", "/v1/analytics/summary", { key: reader.key })).status).toBe(200);
    expect((await call("GET", "/v1/analytics/posts", { key: reader.key })).status).toBe(200);
  });
});
