/**
 * Image rehosting seen from the PATCH route: SSRF-unsafe image URLs reach content's real image ingest
 * over the service binding and come back as 422 IMAGEM_EXTERNA_INVALIDA with nothing stored. The fake
 * hosts (test/support/fakes/content.ts) that resolve to private addresses serve a valid PNG on every
 * path, so a 422 proves no request was sent there (had it been fetched, the answer would be 200 and a
 * CDN URL). Also: `invalid_images` capped at 20 with more than 20 distinct bad URLs, the ingest
 * deadline of the sites side, and the `image-swap` message a slow ingest leaves behind.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  ingestTimeoutMs,
  normalizeIngestResult,
  rehostSettingsImages,
} from "../../src/sites/site/image-rehost";
import {
  api,
  makeSite,
  type SiteBody,
  servicesFor,
  sitesEnv,
  storedRow,
  storedSettings,
} from "../support/sites-helpers";

type Rehost422 = SiteBody & {
  code?: string;
  detail?: string;
  invalid_images?: { path: string; url: string; reason: string }[];
};

const patchSettings = (id: string, headers: Record<string, string>, settings: unknown) =>
  api<Rehost422>("PATCH", `/api/v1/sites/${id}`, { headers, body: { name: "must not apply", settings } });

/** Every one of these must be refused before any byte is sent to the address behind it. */
const UNSAFE: [label: string, url: string][] = [
  ["loopback literal", "http://127.0.0.1/x.png"],
  ["loopback name", "https://loopback.test/x.png"],
  ["link-local metadata literal", "http://169.254.169.254/latest/meta-data/x.png"],
  ["link-local metadata name", "https://metadata.test/x.png"],
  ["private range 10/8 by name", "https://private.test/x.png"],
  ["private range literal 192.168/16", "http://192.168.1.10/x.png"],
  ["IPv6 loopback literal", "http://[::1]/x.png"],
  ["IPv6 unique-local behind a public A record", "https://v6private.test/x.png"],
  ["IPv4-mapped IPv6 (metadata)", "https://mapped.test/x.png"],
  ["IPv4-mapped IPv6 literal", "http://[::ffff:127.0.0.1]/x.png"],
  ["NAT64 of a private IPv4", "https://nat64.test/x.png"],
  ["6to4 of a private IPv4", "https://sixtofour.test/x.png"],
  ["public and loopback answers mixed", "https://mixed.test/x.png"],
  ["CNAME to a private name", "https://cname-private.test/x.png"],
  ["redirect to a private name", "https://img.test/redirect-private"],
  ["redirect to an IPv4-mapped literal", "https://img.test/redirect-mapped"],
  ["redirect to the metadata address", "https://img.test/redirect-metadata"],
  ["redirect to a loopback literal", "https://img.test/redirect-loopback-literal"],
];

describe("PATCH: SSRF-unsafe image URLs are refused for good (422), nothing stored", () => {
  for (const [label, url] of UNSAFE) {
    it(label, async () => {
      const { site, owner } = await makeSite({ settings: { customization: { layout: { radius: 4 } } } });
      const before = await storedRow(site.id);
      const res = await patchSettings(site.id, owner, { logo_url: url });
      expect(res.status, res.text).toBe(422);
      expect(res.body.code).toBe("IMAGEM_EXTERNA_INVALIDA");
      expect(res.body.invalid_images).toEqual([
        { path: "settings.logo_url", url, reason: expect.any(String) },
      ]);
      // Refused for where it points, not for what came back.
      expect(res.body.invalid_images?.[0]?.reason).toMatch(/^(?:non_public_host|bad_redirect)$/);
      expect(await storedRow(site.id)).toEqual(before);
    });
  }

  it("the same hosts on a public address would have been fetched (control: the fake serves them)", async () => {
    const { site, owner } = await makeSite();
    const res = await patchSettings(site.id, owner, { logo_url: "https://img.test/x.png" });
    expect(res.status).toBe(200);
    expect((res.body.settings.logo_url as string).startsWith(sitesEnv.MEDIA_PUBLIC_BASE)).toBe(true);
  });

  it("every image location the spec lists is sent to ingest (each refused here by path)", async () => {
    const { site, owner } = await makeSite();
    const before = await storedRow(site.id);
    const bad = (n: number) => `https://private.test/x.png?loc=${n}`;
    const res = await patchSettings(site.id, owner, {
      logo_url: bad(1),
      favicon_png_url: bad(2),
      favicon_ico_url: bad(3),
      favicon_kit: { "apple-touch-icon": bad(4) },
      seo: { default_og_image: bad(5) },
      logo: {
        version: 1,
        width: 100,
        height: 40,
        light: { sources: [{ type: "image/png", url: bad(6) }] },
        dark: { sources: [{ type: "image/png", url: bad(7) }] },
      },
      ads: {
        units: [
          {
            id: "u1",
            type: "internal",
            creative: {
              kind: "image",
              image_url: bad(8),
              image_alt: "x",
              target_url: "/go",
              width: 10,
              height: 10,
            },
          },
        ],
      },
      about_html: `<img src="${bad(9)}" srcset="${bad(10)} 1x, ${bad(11)} 2x">`,
    });
    expect(res.status).toBe(422);
    expect(res.body.invalid_images?.map((i) => i.path)).toEqual([
      "settings.logo_url",
      "settings.favicon_png_url",
      "settings.favicon_ico_url",
      "settings.favicon_kit.apple-touch-icon",
      "settings.seo.default_og_image",
      "settings.logo.light.sources[0].url",
      "settings.logo.dark.sources[0].url",
      "settings.ads.units[0].creative.image_url",
      "settings.about_html#img[0].src",
      "settings.about_html#img[0].srcset[0]",
      "settings.about_html#img[0].srcset[1]",
    ]);
    expect(await storedRow(site.id)).toEqual(before);
  });
});

describe("422 lists at most 20 invalid images", () => {
  it("with 25 distinct new bad URLs: detail cites the first and 24 others, invalid_images has the first 20", async () => {
    const { site, owner } = await makeSite();
    const before = await storedRow(site.id);
    const urls = Array.from({ length: 25 }, (_, i) => `https://img.test/missing.png?n=${i}`);
    const res = await patchSettings(site.id, owner, {
      about_html: urls.map((u) => `<img src="${u}">`).join(""),
    });
    expect(res.status).toBe(422);
    expect(res.body.detail).toContain(urls[0]);
    expect(res.body.detail).toContain("and 24 others");
    expect(res.body.invalid_images?.map((i) => i.url)).toEqual(urls.slice(0, 20));
    expect(await storedRow(site.id)).toEqual(before);
  });

  it("exactly 20 are all listed; one bad URL has no 'others' note", async () => {
    const { site, owner } = await makeSite();
    const urls = Array.from({ length: 20 }, (_, i) => `https://img.test/gone.png?n=${i}`);
    const res = await patchSettings(site.id, owner, {
      about_html: urls.map((u) => `<img src="${u}">`).join(""),
    });
    expect(res.body.invalid_images).toHaveLength(20);
    const one = await patchSettings(site.id, owner, { logo_url: urls[0] });
    expect(one.body.detail).not.toContain("other");
  });
});

describe("the ingest wait", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("defaults to 8 s (the spec's 'about 8 seconds'); the configured value wins when valid", () => {
    expect(ingestTimeoutMs({ IMAGE_INGEST_TIMEOUT_MS: "" })).toBe(8000);
    expect(ingestTimeoutMs({ IMAGE_INGEST_TIMEOUT_MS: "nope" })).toBe(8000);
    expect(ingestTimeoutMs({ IMAGE_INGEST_TIMEOUT_MS: "-5" })).toBe(8000);
    expect(ingestTimeoutMs({ IMAGE_INGEST_TIMEOUT_MS: "8000" })).toBe(8000);
    expect(ingestTimeoutMs({ IMAGE_INGEST_TIMEOUT_MS: "250" })).toBe(250);
  });

  it("is enforced by sites itself: an ingest still running at the deadline counts as pending", async () => {
    // Content's own fetch deadline in tests is 1.5 s and slow.png answers after 5 s; with a sites-side
    // deadline of 200 ms the answer must come from sites' timer, long before content gives up.
    const { site } = await makeSite();
    const started = Date.now();
    const shortDeadline = { ...sitesEnv, IMAGE_INGEST_TIMEOUT_MS: "200" };
    const result = await rehostSettingsImages(shortDeadline, servicesFor(shortDeadline), {
      siteId: site.id,
      settings: { logo_url: "https://img.test/slow.png" },
      stored: {},
      origins: [],
    });
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(190);
    expect(elapsed).toBeLessThan(1200);
    expect(result).toEqual({
      settings: { logo_url: "https://img.test/slow.png" },
      pending: [{ path: "settings.logo_url", url: "https://img.test/slow.png" }],
    });
  });

  it("ingest down (the binding throws): every URL stays pending, never a refusal", async () => {
    const { site } = await makeSite();
    const down = { ...sitesEnv, CONTENT: {} as Fetcher };
    const settings = { logo_url: "https://img.test/missing.png", favicon_png_url: "https://img.test/ok.png" };
    const result = await rehostSettingsImages(down, servicesFor(down), {
      siteId: site.id,
      settings,
      stored: {},
      origins: [],
    });
    expect(result).toEqual({
      settings,
      pending: [
        { path: "settings.logo_url", url: "https://img.test/missing.png" },
        { path: "settings.favicon_png_url", url: "https://img.test/ok.png" },
      ],
    });
  });

  it("a slow ingest over HTTP: 200 with the external URL kept, and an image-swap message queued", async () => {
    const { site, owner } = await makeSite();
    const sent: unknown[] = [];
    const original = sitesEnv.IMAGE_SWAP.sendBatch.bind(sitesEnv.IMAGE_SWAP);
    vi.spyOn(sitesEnv.IMAGE_SWAP, "sendBatch").mockImplementation(async (messages, options) => {
      sent.push(...[...messages].map((m) => m.body));
      return original(messages, options);
    });
    const started = Date.now();
    const res = await patchSettings(site.id, owner, {
      logo_url: "https://img.test/slow.png",
      favicon_png_url: "https://img.test/ok.png",
    });
    expect(Date.now() - started).toBeLessThan(4000);
    expect(res.status).toBe(200);
    expect(res.body.settings.logo_url).toBe("https://img.test/slow.png");
    expect(res.body.settings).not.toHaveProperty("logo_media_id");
    expect(typeof res.body.settings.favicon_png_media_id).toBe("string");
    expect(JSON.parse((await storedSettings(site.id))!).logo_url).toBe("https://img.test/slow.png");
    // The message's own fields, and the request's trace beside them (src/lib/trace.ts, taken off on consumption).
    expect(sent).toEqual([
      {
        site_id: site.id,
        path: "settings.logo_url",
        url: "https://img.test/slow.png",
        traceparent: expect.stringMatching(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/),
      },
    ]);
  });

  it("80 pending images: every one gets its image-swap message (sent in batches of at most 100)", async () => {
    const { site, owner } = await makeSite();
    const batches: unknown[][] = [];
    const original = sitesEnv.IMAGE_SWAP.sendBatch.bind(sitesEnv.IMAGE_SWAP);
    vi.spyOn(sitesEnv.IMAGE_SWAP, "sendBatch").mockImplementation(async (messages, options) => {
      batches.push([...messages].map((m) => m.body));
      return original(messages, options);
    });
    // error.png answers 503: transient, so every one stays pending.
    const urls = Array.from({ length: 80 }, (_, i) => `https://img.test/error.png?n=${i}`);
    const res = await patchSettings(site.id, owner, {
      about_html: urls.map((u) => `<img src="${u}">`).join(""),
    });
    expect(res.status).toBe(200);
    expect(batches.every((b) => b.length <= 100)).toBe(true);
    expect(batches.flat().map((m) => (m as { url: string }).url)).toEqual(urls);
  });
});

describe("content's answer is checked against the contract", () => {
  it("only a well-formed ready answer swaps, only a definitive rejection refuses; anything else is pending", () => {
    expect(
      normalizeIngestResult({ status: "ready", url: "https://cdn.example/m/1.png", media_id: "m1" }),
    ).toEqual({ status: "ready", url: "https://cdn.example/m/1.png", media_id: "m1" });
    expect(normalizeIngestResult({ status: "rejected", definitive: true, reason: "http_404" })).toEqual({
      status: "rejected",
      definitive: true,
      reason: "http_404",
    });
    for (const odd of [
      undefined,
      null,
      "ready",
      { status: "ready" },
      { status: "ready", url: "javascript:alert(1)", media_id: "m1" },
      { status: "ready", url: 'https://cdn.example/"x', media_id: "m1" },
      { status: "rejected", reason: "maybe" },
      { status: "unknown" },
    ]) {
      expect(normalizeIngestResult(odd).status, JSON.stringify(odd)).toBe("pending");
    }
  });
});
