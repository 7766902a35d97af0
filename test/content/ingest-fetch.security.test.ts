/**
 * The SSRF-safe image fetcher through the worker's real `fetch` (answered by the fake internet, see
 * test/support/fakes/content.ts) and the real DNS-over-HTTPS resolver pointed at the fake DoH server.
 * Every refused private target below WOULD answer 200 with a PNG if it were fetched, so a
 * `rejected/non_public_host` outcome proves the request never left.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  fetchImageSafely,
  type IngestDeps,
  type IngestOutcome,
} from "../../src/content/media/ingest/ingest-image";
import { dohResolver, type Resolver } from "../../src/lib/doh";

const MiB = 1024 * 1024;

function deps(over: Partial<IngestDeps> = {}): IngestDeps {
  return {
    resolver: dohResolver(env.DOH_URL),
    maxBytes: Number(env.INGEST_MAX_BYTES),
    timeoutMs: 3000,
    ...over,
  };
}

const ingest = (url: string, over: Partial<IngestDeps> = {}) => fetchImageSafely(url, deps(over));

const summary = (o: IngestOutcome) =>
  o.kind === "ok" ? { kind: o.kind, contentType: o.contentType, ext: o.ext } : o;

/** A fetcher that records every URL the ingest asked the network for, then does the real fetch. */
function recordingFetcher(): { fetcher: typeof fetch; urls: string[] } {
  const urls: string[] = [];
  const fetcher: typeof fetch = (input, init) => {
    urls.push(input instanceof Request ? input.url : String(input));
    return fetch(input, init);
  };
  return { fetcher, urls };
}

describe("fetchImageSafely: happy paths", () => {
  it.each([
    ["https://img.test/ok.png", "image/png", "png"],
    ["https://img.test/ok.jpg", "image/jpeg", "jpg"],
    ["https://img.test/ok.webp", "image/webp", "webp"],
    ["https://img.test/ok.gif", "image/gif", "gif"],
    ["https://img.test/ok.avif", "image/avif", "avif"],
    ["https://img.test/ok.ico", "image/x-icon", "ico"],
    ["http://img.test/ok.png", "image/png", "png"],
    ["https://v6only.test/ok.png", "image/png", "png"],
    ["https://cname.test/ok.png", "image/png", "png"],
    ["https://IMG.TEST./ok.png", "image/png", "png"],
  ])("%s -> %s", async (url, contentType, ext) => {
    expect(summary(await ingest(url))).toEqual({ kind: "ok", contentType, ext });
  });

  it("returns the fetched bytes unchanged for a raster image", async () => {
    const out = await ingest("https://img.test/ok.png");
    expect(out.kind).toBe("ok");
    if (out.kind !== "ok") return;
    expect(out.bytes.length).toBe(70);
    expect(Array.from(out.bytes.subarray(0, 8))).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  });
});

describe("fetchImageSafely: scheme and URL", () => {
  it.each([
    "ftp://img.test/ok.png",
    "file:///etc/passwd",
    "data:image/png;base64,iVBORw0KGgo=",
    "javascript:alert(1)",
    "gopher://img.test/",
    "ws://img.test/ok.png",
  ])("%s -> rejected forbidden_scheme", async (url) => {
    expect(await ingest(url)).toEqual({ kind: "rejected", reason: "forbidden_scheme" });
  });

  it("refuses a URL that does not parse", async () => {
    expect(await ingest("not a url")).toEqual({ kind: "rejected", reason: "invalid_url" });
    expect(await ingest("//img.test/ok.png")).toEqual({ kind: "rejected", reason: "invalid_url" });
  });

  it("refuses credentials in the URL (parser-confusion vector)", async () => {
    expect(await ingest("https://user:pass@img.test/ok.png")).toEqual({
      kind: "rejected",
      reason: "credentials_in_url",
    });
    expect(await ingest("https://img.test@private.test/x.png")).toEqual({
      kind: "rejected",
      reason: "credentials_in_url",
    });
  });
});

describe("fetchImageSafely: non-public targets are never fetched", () => {
  it.each([
    // loopback in every notation
    "http://127.0.0.1/ok.png",
    "http://127.1/ok.png",
    "http://0x7f.1/ok.png",
    "http://0x7f000001/ok.png",
    "http://2130706433/ok.png",
    "http://017700000001/ok.png",
    "http://0177.0.0.1/ok.png",
    "http://0.0.0.0/ok.png",
    "http://0/ok.png",
    "http://[::1]/ok.png",
    "http://[::]/ok.png",
    "http://[0:0:0:0:0:0:0:1]/ok.png",
    // cloud metadata (link-local)
    "http://169.254.169.254/latest/meta-data/",
    "http://0xa9fea9fe/latest/meta-data/",
    "http://2852039166/latest/meta-data/",
    "http://[::ffff:169.254.169.254]/latest/meta-data/",
    "http://[::ffff:a9fe:a9fe]/latest/meta-data/",
    "http://[fe80::1]/ok.png",
    // private ranges
    "http://10.0.0.5/x.png",
    "http://172.16.0.1/x.png",
    "http://192.168.1.1/x.png",
    "http://100.64.0.1/x.png",
    "http://[fd00::1]/x.png",
    "http://[fc00::1]/x.png",
    // IPv6 with embedded private IPv4
    "http://[::ffff:10.0.0.5]/x.png",
    "http://[64:ff9b::a00:5]/x.png",
    "http://[2002:a00:5::1]/x.png",
    "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/x.png",
    // localhost-like names
    "http://localhost/ok.png",
    "http://LOCALHOST./ok.png",
    "http://app.localhost/ok.png",
    "http://printer.local/ok.png",
    "http://metadata.google.internal/computeMetadata/v1/",
    "http://nas.home.arpa/ok.png",
    "http://1.0.0.127.in-addr.arpa/ok.png",
    "http://intranet/ok.png",
    "http://router.lan/ok.png",
  ])("%s -> rejected non_public_host", async (url) => {
    const rec = recordingFetcher();
    expect(await ingest(url, { fetcher: rec.fetcher })).toEqual({
      kind: "rejected",
      reason: "non_public_host",
    });
    expect(rec.urls).toEqual([]);
  });

  it.each([
    ["https://private.test/x.png", "A 10.0.0.5"],
    ["https://loopback.test/ok.png", "A 127.0.0.1"],
    ["https://metadata.test/latest/meta-data/", "A 169.254.169.254"],
    ["https://mixed.test/ok.png", "one public A and one 127.0.0.1"],
    ["https://v6private.test/ok.png", "public A but AAAA fd00::1"],
    ["https://mapped.test/ok.png", "AAAA ::ffff:169.254.169.254"],
    ["https://nat64.test/ok.png", "AAAA 64:ff9b::a00:1"],
    ["https://sixtofour.test/ok.png", "AAAA 2002:a00:1::1"],
    ["https://cname-private.test/x.png", "CNAME to a private host"],
  ])("a public-looking name resolving to a private address: %s (%s)", async (url) => {
    const rec = recordingFetcher();
    expect(await ingest(url, { fetcher: rec.fetcher })).toEqual({
      kind: "rejected",
      reason: "non_public_host",
    });
    expect(rec.urls).toEqual([]);
  });

  it("checks every address the resolver returns, not only the first", async () => {
    const resolver: Resolver = { resolve: async () => ["93.184.216.34", "2606:2800:220:1::1", "::1"] };
    expect(await ingest("https://img.test/ok.png", { resolver })).toEqual({
      kind: "rejected",
      reason: "non_public_host",
    });
  });

  it.each([
    ["https://img.test/redirect-private", "to a name resolving to 10.0.0.5"],
    ["https://img.test/redirect-loopback-literal", "to 127.0.0.1"],
    ["https://img.test/redirect-metadata", "to 169.254.169.254"],
    ["https://img.test/redirect-mapped", "to [::ffff:127.0.0.1]"],
  ])("a redirect %s (%s) is checked again and refused before it is followed", async (url) => {
    const rec = recordingFetcher();
    expect(await ingest(url, { fetcher: rec.fetcher })).toEqual({
      kind: "rejected",
      reason: "non_public_host",
    });
    expect(rec.urls).toEqual([url]);
  });

  it("a redirect to a forbidden scheme is refused", async () => {
    expect(await ingest("https://img.test/redirect-ftp")).toEqual({
      kind: "rejected",
      reason: "forbidden_scheme",
    });
  });
});

describe("fetchImageSafely: redirects", () => {
  it("follows a redirect to a public host and re-resolves it", async () => {
    const rec = recordingFetcher();
    const out = await ingest("https://img.test/redirect-ok", { fetcher: rec.fetcher });
    expect(summary(out)).toEqual({ kind: "ok", contentType: "image/png", ext: "png" });
    expect(rec.urls).toEqual(["https://img.test/redirect-ok", "https://cdn.img.test/ok.png"]);
  });

  it("resolves a relative Location against the current URL", async () => {
    expect(summary(await ingest("https://img.test/redirect-relative"))).toEqual({
      kind: "ok",
      contentType: "image/png",
      ext: "png",
    });
  });

  it("follows at most 5 redirects (5 ok, 6 refused)", async () => {
    expect((await ingest("https://img.test/redirect-chain/5")).kind).toBe("ok");
    expect(await ingest("https://img.test/redirect-chain/6")).toEqual({
      kind: "rejected",
      reason: "too_many_redirects",
    });
  });

  it("honours a lower maxRedirects", async () => {
    expect((await ingest("https://img.test/redirect-chain/1", { maxRedirects: 1 })).kind).toBe("ok");
    expect(await ingest("https://img.test/redirect-chain/2", { maxRedirects: 1 })).toEqual({
      kind: "rejected",
      reason: "too_many_redirects",
    });
  });

  it("stops a redirect loop", async () => {
    const rec = recordingFetcher();
    expect(await ingest("https://img.test/redirect-loop", { fetcher: rec.fetcher })).toEqual({
      kind: "rejected",
      reason: "too_many_redirects",
    });
    expect(rec.urls).toHaveLength(6);
  });

  it("refuses a redirect without Location", async () => {
    expect(await ingest("https://img.test/redirect-no-location")).toEqual({
      kind: "rejected",
      reason: "bad_redirect",
    });
  });
});

describe("fetchImageSafely: status classification", () => {
  it.each([
    ["https://img.test/missing.png", "rejected", "http_404"],
    ["https://img.test/gone.png", "rejected", "http_410"],
    ["https://img.test/status/400", "rejected", "http_400"],
    ["https://img.test/status/401", "rejected", "http_401"],
    ["https://img.test/status/403", "rejected", "http_403"],
    ["https://img.test/status/451", "rejected", "http_451"],
    ["https://img.test/status/408", "transient", "http_408"],
    ["https://img.test/status/429", "transient", "http_429"],
    ["https://img.test/error.png", "transient", "http_503"],
    ["https://img.test/status/500", "transient", "http_500"],
    ["https://img.test/status/502", "transient", "http_502"],
    ["https://img.test/status/504", "transient", "http_504"],
  ])("%s -> %s %s", async (url, kind, reason) => {
    expect(await ingest(url)).toEqual({ kind, reason });
  });

  it("DNS trouble is transient: NXDOMAIN, no records, SERVFAIL, DoH down", async () => {
    expect(await ingest("https://nxdomain.test/ok.png")).toEqual({
      kind: "transient",
      reason: "dns_nxdomain",
    });
    expect(await ingest("https://empty.test/ok.png")).toEqual({
      kind: "transient",
      reason: "dns_no_address",
    });
    expect(await ingest("https://servfail.test/ok.png")).toEqual({
      kind: "transient",
      reason: "dns_unavailable",
    });
    expect(await ingest("https://dnsdown.test/ok.png")).toEqual({
      kind: "transient",
      reason: "dns_unavailable",
    });
  });

  it("a network failure is transient", async () => {
    const fetcher: typeof fetch = async () => {
      throw new TypeError("connection reset");
    };
    expect(await ingest("https://img.test/ok.png", { fetcher })).toEqual({
      kind: "transient",
      reason: "network_error",
    });
  });
});

describe("fetchImageSafely: timeouts", () => {
  it("a server that answers too late is transient", async () => {
    const started = Date.now();
    expect(await ingest("https://img.test/slow.png", { timeoutMs: 500 })).toEqual({
      kind: "transient",
      reason: "timeout",
    });
    expect(Date.now() - started).toBeLessThan(4000);
  });

  it("a body that stalls mid-stream is transient", async () => {
    expect(await ingest("https://img.test/slow-body.png", { timeoutMs: 500 })).toEqual({
      kind: "transient",
      reason: "timeout",
    });
  });

  it("slow DNS counts against the same deadline", async () => {
    expect(await ingest("https://dnsslow.test/ok.png", { timeoutMs: 500 })).toEqual({
      kind: "transient",
      reason: "timeout",
    });
  });
});

describe("fetchImageSafely: size cap (counted while streaming)", () => {
  it("cancels a 12 MiB body without Content-Length at the default 10 MiB cap", async () => {
    expect(await ingest("https://img.test/big.png")).toEqual({ kind: "rejected", reason: "too_large" });
  });

  it("refuses early when Content-Length already exceeds the cap", async () => {
    expect(await ingest("https://img.test/big-declared.png")).toEqual({
      kind: "rejected",
      reason: "too_large",
    });
  });

  it("at the cap passes, one byte above is refused", async () => {
    const maxBytes = 100_000;
    expect(summary(await ingest("https://img.test/sized/99999", { maxBytes }))).toEqual({
      kind: "ok",
      contentType: "image/png",
      ext: "png",
    });
    const at = await ingest("https://img.test/sized/100000", { maxBytes });
    expect(at.kind === "ok" && at.bytes.length).toBe(100_000);
    expect(await ingest("https://img.test/sized/100001", { maxBytes })).toEqual({
      kind: "rejected",
      reason: "too_large",
    });
  });

  it("a redirect does not reset the cap", async () => {
    expect(await ingest("https://img.test/redirect-chain/1", { maxBytes: 69 })).toEqual({
      kind: "rejected",
      reason: "too_large",
    });
    expect((await ingest("https://img.test/redirect-chain/1", { maxBytes: 70 })).kind).toBe("ok");
  });

  it("counts decoded bytes, so a small gzip-encoded body that inflates past the cap is refused", async () => {
    expect(await ingest("https://img.test/bomb.png")).toEqual({ kind: "rejected", reason: "too_large" });
  });

  it("refuses to run without a usable cap instead of fetching unbounded", async () => {
    for (const maxBytes of [Number.NaN, 0, -1, Number.POSITIVE_INFINITY]) {
      await expect(ingest("https://img.test/ok.png", { maxBytes })).rejects.toThrow(RangeError);
    }
  });

  it("cap of 12 MiB lets the same body through (the cap is what refuses)", async () => {
    expect((await ingest("https://img.test/big.png", { maxBytes: 12 * MiB })).kind).toBe("ok");
  });
});

describe("fetchImageSafely: type by magic bytes, never by Content-Type", () => {
  it("HTML labelled image/png is not an image", async () => {
    expect(await ingest("https://img.test/not-image.png")).toEqual({ kind: "rejected", reason: "not_image" });
  });

  it("an empty body is not an image", async () => {
    expect(await ingest("https://img.test/empty.png")).toEqual({ kind: "rejected", reason: "not_image" });
  });

  it("PNG bytes labelled text/html are a PNG", async () => {
    expect(summary(await ingest("https://img.test/png-as-html"))).toEqual({
      kind: "ok",
      contentType: "image/png",
      ext: "png",
    });
  });
});

describe("fetchImageSafely: SVG goes through the sanitizer", () => {
  it("a clean SVG is stored as the sanitizer's (unchanged) markup", async () => {
    const out = await ingest("https://img.test/logo.svg");
    expect(summary(out)).toEqual({ kind: "ok", contentType: "image/svg+xml", ext: "svg" });
    if (out.kind !== "ok") return;
    const svg = new TextDecoder().decode(out.bytes);
    expect(svg.startsWith("<svg")).toBe(true);
    expect(svg).toContain('<path d="M12 2 2 22h20z" fill="#36c"/>');
  });

  it("a clean SVG behind an XML declaration, comment and DOCTYPE is stored without the prologue", async () => {
    const out = await ingest("https://img.test/logo-prologue.svg");
    expect(summary(out)).toEqual({ kind: "ok", contentType: "image/svg+xml", ext: "svg" });
    if (out.kind !== "ok") return;
    const svg = new TextDecoder().decode(out.bytes);
    expect(svg.startsWith("<svg")).toBe(true);
    expect(svg).not.toContain("DOCTYPE");
  });

  it("an SVG with script is a hostile SVG", async () => {
    expect(await ingest("https://img.test/evil.svg")).toEqual({ kind: "rejected", reason: "hostile_svg" });
  });

  it("an SVG with entity declarations is a hostile SVG", async () => {
    expect(await ingest("https://img.test/xxe.svg")).toEqual({ kind: "rejected", reason: "hostile_svg" });
  });
});
