/**
 * The platform's one outbound guard (src/lib/safe-fetch.ts) under the option sets of its callers:
 * content's image ingest (`imageGuardOptions`: http(s), 5 redirects followed, 2xx bodies read) and
 * identity's OpenID provider requests (`providerGuardOptions`: https only, a 3xx is the answer, every
 * body read), plus webhook deliveries where they differ. DNS and the network are fakes injected
 * through the options: every host below would answer 200 if it were fetched, so a refusal with no
 * recorded request proves nothing left.
 */
import { describe, expect, it } from "vitest";
import { imageGuardOptions } from "../../src/content/media/ingest/ingest-image";
import { safeWebhookSender } from "../../src/content/webhooks/sender";
import type { Env } from "../../src/identity/core/worker-env";
import { providerGuardOptions } from "../../src/identity/sso/outbound";
import { SSO_FETCH_MAX_BYTES } from "../../src/identity/sso/settings";
import { ResolveError, type Resolver } from "../../src/lib/doh";
import { checkDestination, type GuardOptions, guardedFetch } from "../../src/lib/safe-fetch";

const MiB = 1024 * 1024;
const PUBLIC_A = "93.184.216.34";
const PUBLIC_AAAA = "2606:2800:220:1::1";

const ZONES: Record<string, string[]> = {
  "public.example.com": [PUBLIC_A, PUBLIC_AAAA],
  "cdn.example.com": [PUBLIC_A],
  "private.example.com": ["10.0.0.5"],
  "loopback.example.com": ["127.0.0.1"],
  "zero.example.com": ["0.0.0.0"],
  "metadata.example.com": ["169.254.169.254"],
  "mixed.example.com": [PUBLIC_A, "127.0.0.1"],
  "v6private.example.com": [PUBLIC_A, "fd00::1"],
  "mapped.example.com": ["::ffff:169.254.169.254"],
  "mapped-hex.example.com": ["::ffff:7f00:1"],
  "linklocal6.example.com": ["fe80::1"],
};

/** The fake DNS: ZONES, NXDOMAIN for anything else; counts lookups per name. */
function fakeResolver(zones: Record<string, string[] | (() => string[])> = ZONES) {
  const lookups: string[] = [];
  const resolver: Resolver = {
    async resolve(host) {
      lookups.push(host);
      const zone = zones[host];
      if (!zone) throw new ResolveError("nxdomain", `${host} does not exist`);
      return typeof zone === "function" ? zone() : zone;
    },
  };
  return { resolver, lookups };
}

const ZONE_RESOLVER = fakeResolver().resolver;

type Route = (url: URL, init: RequestInit) => Response | Promise<Response>;

/** The fake network: every request recorded; `routes` by path, else 200 "ok". */
function fakeNetwork(routes: Record<string, Route> = {}) {
  const requests: { url: string; init: RequestInit }[] = [];
  const fetcher: typeof fetch = async (input, init) => {
    const url = new URL(String(input));
    requests.push({ url: url.toString(), init: init ?? {} });
    const route = routes[url.pathname];
    return route ? route(url, init ?? {}) : new Response("ok", { status: 200 });
  };
  return { fetcher, requests, urls: () => requests.map((r) => r.url) };
}

const redirect = (location: string) => () => new Response(null, { status: 302, headers: { location } });
const sized =
  (n: number, headers: Record<string, string> = {}) =>
  () =>
    new Response(new Uint8Array(n), { headers });
/** A body that sends its first bytes and then nothing more, ever. */
const stalled = () => () =>
  new Response(
    new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array([0x89, 0x50, 0x4e, 0x47]));
      },
    }),
  );

type Caller = "image" | "provider";

function options(caller: Caller, over: Partial<GuardOptions> = {}): GuardOptions {
  const base =
    caller === "image"
      ? imageGuardOptions({ resolver: ZONE_RESOLVER, maxBytes: 10 * MiB })
      : providerGuardOptions({ DOH_URL: "https://dns.test/dns-query" } as Env);
  return { ...base, resolver: ZONE_RESOLVER, ...over };
}

/** One guarded GET under `caller`'s options, with its own fake network. */
async function get(
  caller: Caller,
  url: string,
  over: Partial<GuardOptions> = {},
  routes: Record<string, Route> = {},
) {
  const net = fakeNetwork(routes);
  const out = await guardedFetch(url, { method: "GET" }, options(caller, { fetcher: net.fetcher, ...over }));
  return { out, net };
}

const refused = (reason: string) => ({ kind: "rejected", reason });
const CALLERS: Caller[] = ["image", "provider"];

describe.each(CALLERS)("the outbound guard with the %s options", (caller) => {
  it.each([
    // private and special IPv4
    "https://10.0.0.5/x",
    "https://172.16.0.1/x",
    "https://192.168.1.1/x",
    "https://100.64.0.1/x",
    "https://127.0.0.1/x",
    "https://169.254.169.254/latest/meta-data/",
    // 0.0.0.0 ("this host" on many stacks) and its short forms
    "https://0.0.0.0/x",
    "https://0/x",
    // decimal, octal and hex notations of loopback and metadata
    "https://2130706433/x",
    "https://017700000001/x",
    "https://0177.0.0.1/x",
    "https://0x7f.1/x",
    "https://0x7f000001/x",
    "https://127.1/x",
    "https://0xa9fea9fe/latest/meta-data/",
    "https://2852039166/latest/meta-data/",
    // private IPv6
    "https://[::1]/x",
    "https://[::]/x",
    "https://[fd00::1]/x",
    "https://[fe80::1]/x",
    // IPv4-mapped, NAT64 and 6to4 forms of private IPv4
    "https://[::ffff:127.0.0.1]/x",
    "https://[::ffff:a9fe:a9fe]/x",
    "https://[::ffff:10.0.0.5]/x",
    "https://[64:ff9b::a00:5]/x",
    "https://[2002:a00:5::1]/x",
    // names that are never public, whatever DNS says
    "https://localhost/x",
    "https://LOCALHOST./x",
    "https://app.localhost/x",
    "https://intranet/x",
    "https://printer.local/x",
    "https://metadata.google.internal/computeMetadata/v1/",
    "https://box.localdomain/x",
    "https://hidden.onion/x",
    "https://1.0.0.127.in-addr.arpa/x",
  ])("%s is refused as non_public_host before any request", async (url) => {
    const { out, net } = await get(caller, url);
    expect(out).toEqual(refused("non_public_host"));
    expect(net.requests).toEqual([]);
  });

  it.each([
    ["private.example.com", "A 10.0.0.5"],
    ["loopback.example.com", "A 127.0.0.1"],
    ["zero.example.com", "A 0.0.0.0"],
    ["metadata.example.com", "A 169.254.169.254"],
    ["mixed.example.com", "one public A and 127.0.0.1"],
    ["v6private.example.com", "public A but AAAA fd00::1"],
    ["mapped.example.com", "AAAA ::ffff:169.254.169.254"],
    ["mapped-hex.example.com", "AAAA ::ffff:7f00:1"],
    ["linklocal6.example.com", "AAAA fe80::1"],
  ])("a public-looking name whose DNS answer is private is refused: %s (%s)", async (host) => {
    const { out, net } = await get(caller, `https://${host}/x`);
    expect(out).toEqual(refused("non_public_host"));
    expect(net.requests).toEqual([]);
  });

  it("a public name is requested by the name that was checked (trailing dot and case normalized)", async () => {
    const { out, net } = await get(caller, "https://Public.Example.COM./x");
    expect(out).toMatchObject({ kind: "answer", status: 200 });
    expect(net.urls()).toEqual(["https://public.example.com/x"]);
    expect(net.requests[0]!.init).toMatchObject({ redirect: "manual" });
  });

  it.each([
    "ftp://public.example.com/x",
    "file:///etc/passwd",
    "data:text/plain,hello",
    "javascript:alert(1)",
    "gopher://public.example.com/",
    "ws://public.example.com/x",
    "wss://public.example.com/x",
  ])("%s: a scheme other than http(s) is forbidden_scheme", async (url) => {
    const { out, net } = await get(caller, url);
    expect(out).toEqual(refused("forbidden_scheme"));
    expect(net.requests).toEqual([]);
  });

  it.each([
    "https://user:pass@public.example.com/x",
    "https://user@public.example.com/x",
    "https://:pass@public.example.com/x",
    "https://public.example.com@private.example.com/x",
  ])("%s: userinfo in the URL is refused (parser-confusion vector)", async (url) => {
    const { out, net } = await get(caller, url);
    expect(out).toEqual(refused("credentials_in_url"));
    expect(net.requests).toEqual([]);
  });

  it("a URL that does not parse is invalid_url", async () => {
    expect((await get(caller, "not a url")).out).toEqual(refused("invalid_url"));
    expect((await get(caller, "//public.example.com/x")).out).toEqual(refused("invalid_url"));
  });

  it("DNS trouble is transient, never a request", async () => {
    const down: Resolver = {
      resolve: async () => {
        throw new ResolveError("unavailable", "SERVFAIL");
      },
    };
    expect((await get(caller, "https://nowhere.example.com/x")).out).toEqual({
      kind: "transient",
      reason: "dns_nxdomain",
    });
    const { out, net } = await get(caller, "https://public.example.com/x", { resolver: down });
    expect(out).toEqual({ kind: "transient", reason: "dns_unavailable" });
    expect(net.requests).toEqual([]);
  });

  it("rebinding: each hop is resolved once and that answer is the one judged; the connection is the platform's", async () => {
    let answers = 0;
    const rebinding = fakeResolver({
      "rebind.example.com": () => (answers++ === 0 ? [PUBLIC_A] : ["127.0.0.1"]),
    });
    const { out, net } = await get(caller, "https://rebind.example.com/x", { resolver: rebinding.resolver });
    // One lookup, judged public, then the runtime's fetch of the name: the window between the two is
    // closed by the platform (a Worker's subrequest cannot reach private networks), see the file's doc.
    expect(rebinding.lookups).toEqual(["rebind.example.com"]);
    expect(out).toMatchObject({ kind: "answer", status: 200 });
    expect(net.urls()).toEqual(["https://rebind.example.com/x"]);
  });

  it("an answer larger than the cap is too_large, counted while streaming; at the cap it passes", async () => {
    const cap = caller === "image" ? 4096 : SSO_FETCH_MAX_BYTES;
    const over = caller === "image" ? { body: { read: "2xx" as const, maxBytes: cap } } : {};
    const routes = { "/at": sized(cap), "/above": sized(cap + 1) };
    const at = (await get(caller, "https://public.example.com/at", over, routes)).out;
    expect(at.kind === "answer" && at.body?.byteLength).toBe(cap);
    expect((await get(caller, "https://public.example.com/above", over, routes)).out).toEqual(
      refused("too_large"),
    );
  });

  it("a declared Content-Length above the cap is refused unread", async () => {
    let pulled = 0;
    const routes = {
      "/declared": () =>
        new Response(
          new ReadableStream<Uint8Array>({
            pull(controller) {
              pulled++;
              controller.enqueue(new Uint8Array(1024));
            },
          }),
          { headers: { "content-length": String(100 * MiB) } },
        ),
    };
    expect((await get(caller, "https://public.example.com/declared", {}, routes)).out).toEqual(
      refused("too_large"),
    );
    expect(pulled).toBeLessThanOrEqual(1);
  });

  it("a body that stalls is a timeout at the deadline (not a hang)", async () => {
    const started = Date.now();
    const { out } = await get(
      caller,
      "https://public.example.com/stall",
      { timeoutMs: 300 },
      { "/stall": stalled() },
    );
    expect(out).toEqual({ kind: "transient", reason: "timeout" });
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it("answers that never come and DNS that never answers count against the same deadline", async () => {
    const hung = { "/hung": () => new Promise<Response>(() => {}) };
    expect((await get(caller, "https://public.example.com/hung", { timeoutMs: 300 }, hung)).out).toEqual({
      kind: "transient",
      reason: "timeout",
    });
    const silent: Resolver = { resolve: () => new Promise<string[]>(() => {}) };
    const { out, net } = await get(caller, "https://public.example.com/x", {
      timeoutMs: 300,
      resolver: silent,
    });
    expect(out).toEqual({ kind: "transient", reason: "timeout" });
    expect(net.requests).toEqual([]);
  });

  it("refuses to run without a usable cap instead of reading unbounded", async () => {
    for (const maxBytes of [Number.NaN, 0, -1, Number.POSITIVE_INFINITY]) {
      await expect(
        get(caller, "https://public.example.com/x", { body: { read: "always", maxBytes } }),
      ).rejects.toThrow(RangeError);
    }
  });
});

describe("redirects: image ingest follows them, each hop checked again", () => {
  it.each([
    ["https://private.example.com/x", "a name resolving to 10.0.0.5"],
    ["http://127.0.0.1/x", "loopback literal"],
    ["http://169.254.169.254/latest/meta-data/", "metadata literal"],
    ["http://[::ffff:127.0.0.1]/x", "IPv4-mapped loopback"],
    ["http://0x7f.1/x", "hex loopback"],
    ["http://localhost/x", "localhost"],
  ])("a redirect to %s (%s) is refused before it is followed", async (location) => {
    const { out, net } = await get("image", "https://public.example.com/r", {}, { "/r": redirect(location) });
    expect(out).toEqual(refused("non_public_host"));
    expect(net.urls()).toEqual(["https://public.example.com/r"]);
  });

  it("a redirect to a forbidden scheme or with userinfo is refused", async () => {
    const routes = {
      "/ftp": redirect("ftp://public.example.com/x"),
      "/creds": redirect("https://u:p@cdn.example.com/"),
    };
    expect((await get("image", "https://public.example.com/ftp", {}, routes)).out).toEqual(
      refused("forbidden_scheme"),
    );
    expect((await get("image", "https://public.example.com/creds", {}, routes)).out).toEqual(
      refused("credentials_in_url"),
    );
  });

  it("rebinding across a redirect: the same name is resolved again and its new private answer refused", async () => {
    let answers = 0;
    const rebinding = fakeResolver({
      "rebind.example.com": () => (answers++ === 0 ? [PUBLIC_A] : ["10.0.0.5"]),
    });
    const { out, net } = await get(
      "image",
      "https://rebind.example.com/r",
      { resolver: rebinding.resolver },
      { "/r": redirect("/x") },
    );
    expect(out).toEqual(refused("non_public_host"));
    expect(rebinding.lookups).toEqual(["rebind.example.com", "rebind.example.com"]);
    expect(net.urls()).toEqual(["https://rebind.example.com/r"]);
  });

  it("follows a redirect to a public host, relative or absolute", async () => {
    const routes = { "/abs": redirect("https://cdn.example.com/x"), "/rel": redirect("/x") };
    const abs = await get("image", "https://public.example.com/abs", {}, routes);
    expect(abs.out).toMatchObject({ kind: "answer", status: 200, url: "https://cdn.example.com/x" });
    expect(abs.net.urls()).toEqual(["https://public.example.com/abs", "https://cdn.example.com/x"]);
    expect((await get("image", "https://public.example.com/rel", {}, routes)).out).toMatchObject({
      url: "https://public.example.com/x",
    });
  });

  it("at most 5 redirects (5 followed, the 6th refused); a loop stops there", async () => {
    const chain: Record<string, Route> = {};
    for (let n = 1; n <= 6; n++) chain[`/chain/${n}`] = redirect(`/chain/${n - 1}`);
    chain["/chain/0"] = () => new Response("end");
    chain["/loop"] = redirect("/loop");
    expect((await get("image", "https://public.example.com/chain/5", {}, chain)).out).toMatchObject({
      status: 200,
    });
    expect((await get("image", "https://public.example.com/chain/6", {}, chain)).out).toEqual(
      refused("too_many_redirects"),
    );
    const loop = await get("image", "https://public.example.com/loop", {}, chain);
    expect(loop.out).toEqual(refused("too_many_redirects"));
    expect(loop.net.requests).toHaveLength(6);
  });

  it("a redirect without a usable Location is bad_redirect", async () => {
    const routes = {
      "/none": () => new Response(null, { status: 302 }),
      "/garbage": redirect("http://[zz"),
    };
    expect((await get("image", "https://public.example.com/none", {}, routes)).out).toEqual(
      refused("bad_redirect"),
    );
    expect((await get("image", "https://public.example.com/garbage", {}, routes)).out).toEqual(
      refused("bad_redirect"),
    );
  });

  it("a non-2xx body is not read; http is allowed for images", async () => {
    const routes = { "/missing": () => new Response("not found", { status: 404 }) };
    expect((await get("image", "http://public.example.com/missing", {}, routes)).out).toMatchObject({
      kind: "answer",
      status: 404,
      body: null,
    });
  });
});

describe("redirects: provider requests never follow them", () => {
  it.each(["https://private.example.com/x", "http://127.0.0.1/x", "https://cdn.example.com/x"])(
    "a 3xx to %s is the answer (oauth4webapi refuses it), nothing else is requested",
    async (location) => {
      const { out, net } = await get(
        "provider",
        "https://public.example.com/r",
        {},
        { "/r": redirect(location) },
      );
      expect(out).toMatchObject({ kind: "answer", status: 302 });
      expect(net.urls()).toEqual(["https://public.example.com/r"]);
    },
  );

  it("a loop is one request", async () => {
    const { out, net } = await get(
      "provider",
      "https://public.example.com/loop",
      {},
      { "/loop": redirect("/loop") },
    );
    expect(out).toMatchObject({ kind: "answer", status: 302 });
    expect(net.requests).toHaveLength(1);
  });

  it("plain http is forbidden, even to a public host; error bodies are read (the provider's error JSON)", async () => {
    expect((await get("provider", "http://public.example.com/x")).out).toEqual(refused("forbidden_scheme"));
    const routes = { "/token": () => Response.json({ error: "invalid_grant" }, { status: 400 }) };
    const out = (await get("provider", "https://public.example.com/token", {}, routes)).out;
    expect(out.kind === "answer" && JSON.parse(new TextDecoder().decode(out.body!))).toEqual({
      error: "invalid_grant",
    });
  });

  it("loopback issuers only with the development flag, and then only localhost, 127.0.0.1 and [::1]", async () => {
    const dev = providerGuardOptions({ DOH_URL: "https://dns.test/q", DEV_SSO_LOCAL_ISSUERS: "true" } as Env);
    const net = fakeNetwork();
    const lookups = fakeResolver();
    const run = (url: string) =>
      guardedFetch(url, {}, { ...dev, resolver: lookups.resolver, fetcher: net.fetcher });
    for (const url of ["http://localhost:8791/x", "http://127.0.0.1:8791/x", "http://[::1]:8791/x"]) {
      expect(await run(url), url).toMatchObject({ kind: "answer", status: 200 });
    }
    expect(await run("http://10.0.0.5/x")).toEqual(refused("forbidden_scheme"));
    expect(await run("https://10.0.0.5/x")).toEqual(refused("non_public_host"));
    expect(await run("http://u:p@localhost/x")).toEqual(refused("forbidden_scheme"));
    expect(lookups.lookups).toEqual([]);
    expect((await get("provider", "http://localhost:8791/x")).out).toEqual(refused("forbidden_scheme"));
  });
});

describe("webhook deliveries: https only, a 3xx is a failed attempt, the body is never read", () => {
  it("checkDestination judges the URL and its DNS within the deadline", async () => {
    const policy = { schemes: ["https:"] as const, resolver: ZONE_RESOLVER, timeoutMs: 300 };
    expect(await checkDestination("https://Public.Example.com./hook", policy)).toEqual({
      ok: true,
      url: "https://public.example.com/hook",
    });
    expect(await checkDestination("https://private.example.com/hook", policy)).toEqual(
      refused("non_public_host"),
    );
    const silent: Resolver = { resolve: () => new Promise<string[]>(() => {}) };
    expect(
      await checkDestination("https://public.example.com/hook", { ...policy, resolver: silent }),
    ).toEqual({
      kind: "transient",
      reason: "timeout",
    });
  });

  it("a redirect to a private address is not followed and the receiver's body is not read", async () => {
    let pulled = false;
    const net = fakeNetwork({
      "/hook": () =>
        new Response(
          new ReadableStream(
            {
              pull() {
                pulled = true;
              },
            },
            { highWaterMark: 0 },
          ),
          { status: 307, headers: { location: "http://169.254.169.254/" } },
        ),
    });
    const sender = safeWebhookSender({ resolver: ZONE_RESOLVER, fetcher: net.fetcher });
    expect(await sender.send("https://public.example.com/hook", {}, "{}")).toMatchObject({
      kind: "failed",
      status: 307,
    });
    expect(net.urls()).toEqual(["https://public.example.com/hook"]);
    expect(pulled).toBe(false);
    expect(await sender.send("https://0x7f.1/hook", {}, "{}")).toMatchObject({
      error: "destination_not_public",
      retryable: false,
    });
  });
});
