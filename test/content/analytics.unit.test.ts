import { describe, expect, it } from "vitest";
import { visitorId } from "../../src/content/analytics/collect";
import { csvField } from "../../src/content/analytics/export";
import {
  classifyHit,
  normalizePagePath,
  parsePageView,
  referrerHost,
} from "../../src/content/analytics/page-view";
import { dailySeries, parsePostsPage } from "../../src/content/analytics/report";
import { addDays, analyticsWindow, daysInRange, parseDay } from "../../src/content/analytics/window";
import { postUrl } from "../../src/content/core/effects/outbound";
import { postKeyOfPath } from "../../src/content/posts/path";

const problem = (status: number, code: string) => expect.objectContaining({ status, code });
const TODAY = "2026-03-15";
const CHROME =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36";

describe("the analytics window", () => {
  it("days: default 30 ending today; 1 is today; 365 is the longest", () => {
    expect(analyticsWindow({}, TODAY)).toEqual({ from: "2026-02-14", to: TODAY, days: 30 });
    expect(analyticsWindow({ days: "1" }, TODAY)).toEqual({ from: TODAY, to: TODAY, days: 1 });
    expect(analyticsWindow({ days: "365" }, TODAY)).toEqual({ from: "2025-03-16", to: TODAY, days: 365 });
  });

  it("days 0, 366, abc, signed, decimal, empty: 400 INVALID_WINDOW", () => {
    for (const days of ["0", "366", "abc", "-1", "+5", "1.5", "", " 5", "1000"]) {
      expect(() => analyticsWindow({ days }, TODAY), days).toThrow(problem(400, "INVALID_WINDOW"));
    }
  });

  it("from/to take precedence and make days irrelevant, even a malformed one", () => {
    expect(analyticsWindow({ from: "2026-01-01", to: "2026-01-31", days: "abc" }, TODAY)).toEqual({
      from: "2026-01-01",
      to: "2026-01-31",
      days: 31,
    });
    expect(analyticsWindow({ from: "2026-03-01", days: "0" }, TODAY)).toEqual({
      from: "2026-03-01",
      to: TODAY,
      days: 15,
    });
    expect(analyticsWindow({ to: "2026-01-31" }, TODAY)).toEqual({
      from: "2026-01-02",
      to: "2026-01-31",
      days: 30,
    });
  });

  it("to is inclusive: from = to is one day", () => {
    expect(analyticsWindow({ from: "2026-01-01", to: "2026-01-01" }, TODAY).days).toBe(1);
  });

  it("at most 366 days (a leap year); from after to is 400; a future to is allowed", () => {
    expect(analyticsWindow({ from: "2024-01-01", to: "2024-12-31" }, TODAY).days).toBe(366);
    expect(() => analyticsWindow({ from: "2024-01-01", to: "2025-01-01" }, TODAY)).toThrow(
      problem(400, "INVALID_WINDOW"),
    );
    expect(() => analyticsWindow({ from: "2026-01-02", to: "2026-01-01" }, TODAY)).toThrow(
      problem(400, "INVALID_WINDOW"),
    );
    expect(() => analyticsWindow({ from: "2026-04-01" }, TODAY)).toThrow(problem(400, "INVALID_WINDOW"));
    expect(analyticsWindow({ from: TODAY, to: "2026-03-16" }, TODAY).days).toBe(2);
  });

  it("dates are real calendar days written YYYY-MM-DD", () => {
    expect(parseDay("2024-02-29")).toBe("2024-02-29");
    for (const bad of [
      "2025-02-29",
      "2025-02-30",
      "2025-13-01",
      "2025-00-10",
      "2025-1-01",
      "25-01-01",
      "20250101",
      "2025-01-01T00:00:00Z",
      "1969-12-31",
    ]) {
      expect(parseDay(bad), bad).toBeNull();
    }
  });

  it("day arithmetic crosses months, years and leap days", () => {
    expect(addDays("2024-02-28", 1)).toBe("2024-02-29");
    expect(addDays("2025-01-01", -1)).toBe("2024-12-31");
    expect(daysInRange("2024-03-01", "2024-03-31")).toBe(31);
  });

  it("the daily series has every day of the window, zeros where nothing was counted", () => {
    const window = { from: "2026-01-30", to: "2026-02-02", days: 4 };
    expect(dailySeries(window, [{ date: "2026-02-01", views: 2, visitors: 1, bot_views: 3 }])).toEqual([
      { date: "2026-01-30", views: 0, visitors: 0, bot_views: 0 },
      { date: "2026-01-31", views: 0, visitors: 0, bot_views: 0 },
      { date: "2026-02-01", views: 2, visitors: 1, bot_views: 3 },
      { date: "2026-02-02", views: 0, visitors: 0, bot_views: 0 },
    ]);
  });
});

describe("analytics per post: limit and offset", () => {
  it("limit 1..200 (default 50), offset 0..1,000,000 (default 0)", () => {
    expect(parsePostsPage({})).toEqual({ limit: 50, offset: 0 });
    expect(parsePostsPage({ limit: "1", offset: "0" })).toEqual({ limit: 1, offset: 0 });
    expect(parsePostsPage({ limit: "200", offset: "1000000" })).toEqual({ limit: 200, offset: 1_000_000 });
    for (const limit of ["0", "201", "x", "-1", "1.0", ""]) {
      expect(() => parsePostsPage({ limit }), limit).toThrow(problem(400, "INVALID_LIMIT"));
    }
    for (const offset of ["-1", "x", "1.0", "", "1000001", "99999999"]) {
      expect(() => parsePostsPage({ offset }), offset).toThrow(problem(400, "INVALID_OFFSET"));
    }
  });
});

describe("which path is which post (the inverse of postUrl)", () => {
  const site = { primary_domain: "blog.example", slug: "blog", default_language: "en" };
  it("every post URL the platform builds maps back to its post", () => {
    for (const post of [
      { slug: "hello", language: "en" },
      { slug: "ola-mundo", language: "pt-BR" },
      { slug: "hallo", language: "de" },
      { slug: "nihao", language: "zh-Hant-TW" },
    ]) {
      const path = new URL(postUrl(site, post, "sites.example")).pathname;
      expect(postKeyOfPath(path, "en"), path).toEqual(post);
    }
  });

  it("other pages map to no post", () => {
    for (const path of [
      "/",
      "/en/hello",
      "/pt-br/ola",
      "/a/b/c",
      "/Hello",
      "/tag/news/x",
      "/01J00000000000000000000000",
    ]) {
      expect(postKeyOfPath(path, "en"), path).toBeNull();
    }
  });
});

describe("who is a bot", () => {
  const hit = (headers: Record<string, string>) => classifyHit(new Headers(headers));

  it("a browser is a person", () => {
    expect(hit({ "user-agent": CHROME })).toBe("human");
    expect(hit({ "user-agent": "Opera/9.80 (Windows NT 6.1) Presto/2.12.388 Version/12.18" })).toBe("human");
  });

  it("no user agent, one that is no browser's, or a known robot pattern is a bot", () => {
    for (const ua of [
      "",
      "   ",
      "Wget/1.21",
      "okhttp/4.12.0",
      "Go-http-client/2.0",
      "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
      "Mozilla/5.0 (compatible; YandexBot/3.0)",
      "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0)",
      "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)",
      "Mozilla/5.0 (Macintosh) AppleWebKit/537.36 (KHTML, like Gecko) Slackbot-LinkExpanding 1.0",
      "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120 Safari/537.36",
      "Mozilla/5.0 (compatible; Pingdom.com_bot_version_1.4)",
      "Mozilla/5.0 (compatible; UptimeRobot/2.0)",
      "Mozilla/5.0 (Windows NT 10.0) Chrome/120 Safari/537.36 PTST/240101 (WebPageTest gtmetrix)",
    ]) {
      expect(hit(ua === "" ? {} : { "user-agent": ua }), ua).toBe("bot");
    }
  });

  it("a speculative load is no view, whoever asks", () => {
    expect(hit({ "user-agent": CHROME, "sec-purpose": "prefetch;prerender" })).toBe("prefetch");
    expect(hit({ "user-agent": CHROME, "sec-purpose": "prefetch" })).toBe("prefetch");
    expect(hit({ "user-agent": CHROME, purpose: "prefetch" })).toBe("prefetch");
    expect(hit({ "user-agent": CHROME, "x-purpose": "preview" })).toBe("prefetch");
    expect(hit({ "user-agent": CHROME, "x-moz": "prefetch" })).toBe("prefetch");
    expect(hit({ "sec-purpose": "prefetch" })).toBe("prefetch");
  });
});

describe("what of a page view is kept", () => {
  it("the path without query, fragment and trailing slash", () => {
    expect(normalizePagePath("/a/b/?utm_source=x#top")).toBe("/a/b");
    expect(normalizePagePath("/")).toBe("/");
    expect(normalizePagePath("/?q=1")).toBe("/");
    expect(normalizePagePath("/caf%C3%A9")).toBe("/caf%C3%A9");
  });

  it("no path: relative, protocol-relative, too long, whitespace or control characters, not a string", () => {
    for (const bad of ["", "a", "//host/x", `/${"x".repeat(512)}`, "/a b", "/a\tb", "/a\u0000", 7, null]) {
      expect(normalizePagePath(bad), String(bad)).toBeNull();
    }
    expect(normalizePagePath(`/${"x".repeat(511)}`)).not.toBeNull();
  });

  it("the referrer as another site's host only", () => {
    const origin = "https://www.blog.example";
    expect(referrerHost("https://www.google.com/search?q=me", origin)).toBe("www.google.com");
    expect(referrerHost("https://blog.example/other", origin)).toBeNull();
    expect(referrerHost("https://WWW.BLOG.EXAMPLE/x", origin)).toBeNull();
    expect(referrerHost("android-app://com.example", origin)).toBeNull();
    expect(referrerHost("", origin)).toBeNull();
    expect(referrerHost(42, origin)).toBeNull();
    expect(referrerHost("https://news.example/", undefined)).toBe("news.example");
  });

  it("the body is a JSON object with a path; anything else is 400 INVALID_PAGE_VIEW", () => {
    expect(parsePageView('{"path":"/x?y","referrer":"r"}')).toEqual({ path: "/x", referrer: "r" });
    for (const body of ["", "{", "[]", '"x"', "{}", '{"path":"x"}', `{"path":"/${"a".repeat(5000)}"}`]) {
      expect(() => parsePageView(body), body.slice(0, 20)).toThrow(problem(400, "INVALID_PAGE_VIEW"));
    }
  });

  it("a member other than path and referrer is 400 BAD_REQUEST naming it, never dropped (issue 33)", () => {
    for (const [body, unknown] of [
      ['{"path":"/x","title":"T"}', ["title"]],
      ['{"site_id":"s","path":"/x","referrer":"r","ts":1}', ["site_id", "ts"]],
    ] as const) {
      expect(() => parsePageView(body), body).toThrow(problem(400, "BAD_REQUEST"));
      try {
        parsePageView(body);
      } catch (error) {
        expect(error).toMatchObject({ details: { path: unknown[0], unknown } });
      }
    }
  });
});

describe("the visitor id", () => {
  it("is 22 url-safe characters, the same within a day and salt, another with another salt, site, IP or browser", async () => {
    const id = await visitorId("salt-1", "site-a", "192.0.2.1", CHROME);
    expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(await visitorId("salt-1", "site-a", "192.0.2.1", CHROME)).toBe(id);
    const others = await Promise.all([
      visitorId("salt-2", "site-a", "192.0.2.1", CHROME),
      visitorId("salt-1", "site-b", "192.0.2.1", CHROME),
      visitorId("salt-1", "site-a", "192.0.2.2", CHROME),
      visitorId("salt-1", "site-a", "192.0.2.1", `${CHROME} Edg/126`),
    ]);
    expect(new Set([id, ...others]).size).toBe(5);
  });
});

describe("CSV fields", () => {
  it("quoted when they hold a comma, quote or line break; formulas defused", () => {
    expect(csvField("/plain")).toBe("/plain");
    expect(csvField(12)).toBe("12");
    expect(csvField("/a,b")).toBe('"/a,b"');
    expect(csvField('/q"x')).toBe('"/q""x"');
    expect(csvField("/a\nb")).toBe('"/a\nb"');
    expect(csvField("=HYPERLINK(1)")).toBe("'=HYPERLINK(1)");
    expect(csvField("@x,y")).toBe('"\'@x,y"');
  });
});
