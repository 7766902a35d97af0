import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { dohResolver, ResolveError } from "../../src/lib/doh";

const resolver = () => dohResolver(env.DOH_URL);

async function failure(host: string): Promise<string> {
  try {
    await resolver().resolve(host);
  } catch (err) {
    if (err instanceof ResolveError) return err.kind;
    throw err;
  }
  throw new Error(`${host} resolved`);
}

describe("dohResolver (DNS-over-HTTPS JSON API)", () => {
  it("returns every A and AAAA address", async () => {
    expect((await resolver().resolve("img.test")).sort()).toEqual(["2606:2800:220:1::1", "93.184.216.34"]);
  });

  it("returns a private address alongside a public one so the caller can refuse the host", async () => {
    expect((await resolver().resolve("mixed.test")).sort()).toEqual([
      "127.0.0.1",
      "2606:2800:220:1::1",
      "93.184.216.34",
    ]);
    expect((await resolver().resolve("v6private.test")).sort()).toEqual(["93.184.216.34", "fd00::1"]);
  });

  it("keeps only address records of a CNAME chain", async () => {
    expect((await resolver().resolve("cname-private.test")).sort()).toEqual(["10.0.0.5"]);
  });

  it("handles AAAA-only hosts", async () => {
    expect(await resolver().resolve("v6only.test")).toEqual(["2606:2800:220:1::1"]);
  });

  it("classifies failures: NXDOMAIN, no records, SERVFAIL, DoH down", async () => {
    expect(await failure("nxdomain.test")).toBe("nxdomain");
    expect(await failure("empty.test")).toBe("no_address");
    expect(await failure("servfail.test")).toBe("unavailable");
    expect(await failure("dnsdown.test")).toBe("unavailable");
  });

  it("fails closed on a malformed record instead of dropping it", async () => {
    const fetcher: typeof fetch = async () =>
      new Response(JSON.stringify({ Status: 0, Answer: [{ type: 1, data: "localhost" }] }));
    await expect(dohResolver("https://dns.test/dns-query", fetcher).resolve("x.test")).rejects.toMatchObject({
      kind: "unavailable",
    });
  });

  it("fails when the DoH server is unreachable", async () => {
    const fetcher: typeof fetch = async () => {
      throw new TypeError("network down");
    };
    await expect(
      dohResolver("https://dns.test/dns-query", fetcher).resolve("img.test"),
    ).rejects.toBeInstanceOf(ResolveError);
  });
});
