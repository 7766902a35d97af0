/** The image-swap consumer: replaces external URLs kept after an unfinished ingest. */
import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import { swapSettings } from "../../src/sites/site/store";
import {
  api,
  deliverQueue,
  forceStoredSettings,
  makeSite,
  sitesEnv,
  storedSettings,
} from "../support/sites-helpers";

const runSwap = (bodies: unknown[]) => deliverQueue("image-swap", bodies);

const OK = "https://img.test/ok.png";

describe("image-swap consumer", () => {
  it("swaps a kept URL for the CDN URL once ingest is ready, sets the media id and acks", async () => {
    const { site } = await makeSite();
    await forceStoredSettings(
      site.id,
      JSON.stringify({ logo_url: OK, customization: { theme_base: "dark" } }),
    );
    const result = await runSwap([{ site_id: site.id, path: "settings.logo_url", url: OK }]);
    expect(result.explicitAcks).toEqual(["m0"]);
    const stored = JSON.parse((await storedSettings(site.id))!);
    expect(stored.logo_url.startsWith(sitesEnv.MEDIA_PUBLIC_BASE)).toBe(true);
    expect(typeof stored.logo_media_id).toBe("string");
    expect(stored.customization).toEqual({ theme_base: "dark" });
  });

  it("the swap shows in by-host at once (cache invalidated)", async () => {
    const { site } = await makeSite();
    await forceStoredSettings(site.id, JSON.stringify({ logo_url: OK }));
    const host = `${site.slug}.sites.localhost`;
    await api("GET", `/api/v1/sites/by-host?host=${host}`);
    await runSwap([{ site_id: site.id, path: "settings.logo_url", url: OK }]);
    const res = await api<{ settings: { logo_url: string } }>("GET", `/api/v1/sites/by-host?host=${host}`);
    expect(res.body.settings.logo_url.startsWith(sitesEnv.MEDIA_PUBLIC_BASE)).toBe(true);
  });

  it("does nothing when the document no longer has that URL at that path", async () => {
    const { site } = await makeSite();
    const doc = JSON.stringify({ logo_url: "https://img.test/ok.jpg" });
    await forceStoredSettings(site.id, doc);
    const result = await runSwap([{ site_id: site.id, path: "settings.logo_url", url: OK }]);
    expect(result.explicitAcks).toEqual(["m0"]);
    expect(await storedSettings(site.id)).toBe(doc);
  });

  it("still pending (too slow): retried later, nothing changed", async () => {
    const { site } = await makeSite();
    const doc = JSON.stringify({ logo_url: "https://img.test/slow.png" });
    await forceStoredSettings(site.id, doc);
    const result = await runSwap([
      { site_id: site.id, path: "settings.logo_url", url: "https://img.test/slow.png" },
    ]);
    expect(result.retryMessages.map((m) => m.msgId)).toEqual(["m0"]);
    expect(await storedSettings(site.id)).toBe(doc);
  });

  it("refused for good: acked, the external URL stays", async () => {
    const { site } = await makeSite();
    const doc = JSON.stringify({ logo_url: "https://img.test/missing.png" });
    await forceStoredSettings(site.id, doc);
    const result = await runSwap([
      { site_id: site.id, path: "settings.logo_url", url: "https://img.test/missing.png" },
    ]);
    expect(result.explicitAcks).toEqual(["m0"]);
    expect(await storedSettings(site.id)).toBe(doc);
  });

  it("acks messages for deleted or missing sites and malformed bodies", async () => {
    const { site, owner } = await makeSite();
    await forceStoredSettings(site.id, JSON.stringify({ logo_url: OK }));
    await api("DELETE", `/api/v1/sites/${site.id}`, { headers: owner });
    const result = await runSwap([
      { site_id: site.id, path: "settings.logo_url", url: OK },
      { site_id: newId(), path: "settings.logo_url", url: OK },
      { bogus: 1 },
    ]);
    expect(result.explicitAcks.sort()).toEqual(["m0", "m1", "m2"]);
  });

  it("the write is a compare-and-swap: a document changed meanwhile is never overwritten", async () => {
    const { site } = await makeSite();
    await forceStoredSettings(site.id, JSON.stringify({ logo_url: "/new.png" }));
    const swapped = await swapSettings(
      sitesEnv.DB,
      site.id,
      JSON.stringify({ logo_url: OK }),
      "{}",
      new Date().toISOString(),
    );
    expect(swapped).toBe(false);
    expect(await storedSettings(site.id)).toBe(JSON.stringify({ logo_url: "/new.png" }));
  });

  it("a PATCH whose image stays pending queues a swap that later completes", async () => {
    // error.png stays transient, so the queued message is retried rather than acked or swapped.
    const { site, owner } = await makeSite();
    const res = await api<{ settings: Record<string, unknown> }>("PATCH", `/api/v1/sites/${site.id}`, {
      headers: owner,
      body: { settings: { logo_url: "https://img.test/error.png" } },
    });
    expect(res.status).toBe(200);
    const result = await runSwap([
      { site_id: site.id, path: "settings.logo_url", url: "https://img.test/error.png" },
    ]);
    expect(result.retryMessages.map((m) => m.msgId)).toEqual(["m0"]);
  });
});
