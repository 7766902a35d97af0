/** Edge cases across the site routes: sanitized markup, legacy UUID ids, body limits, odd bodies. */
import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import {
  api,
  legacyUuidSite,
  makeSite,
  orgMember,
  type SiteBody,
  storedRow,
  storedSettings,
  uniqueSlug,
} from "../support/sites-helpers";

describe("PATCH settings: markup is sanitized on write", () => {
  it("logo_svg comes back and is stored without script or on* handlers", async () => {
    const { site, owner } = await makeSite();
    const dirty =
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10" onload="alert(1)"><script>alert(2)</script><rect width="10" height="10"/></svg>';
    const res = await api<SiteBody>("PATCH", `/api/v1/sites/${site.id}`, {
      headers: owner,
      body: { settings: { logo_svg: dirty } },
    });
    expect(res.status).toBe(200);
    const clean = res.body.settings.logo_svg as string;
    expect(clean).toContain("<rect");
    expect(clean).not.toMatch(/script|onload/i);
    expect(JSON.parse((await storedSettings(site.id))!).logo_svg).toBe(clean);
  });
});

describe("a hostile SVG image is refused for good", () => {
  it("PATCH with logo_url pointing at evil.svg is 422 and nothing is stored", async () => {
    const { site, owner } = await makeSite();
    const before = await storedRow(site.id);
    const res = await api("PATCH", `/api/v1/sites/${site.id}`, {
      headers: owner,
      body: { settings: { logo_url: "https://img.test/evil.svg" } },
    });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("IMAGEM_EXTERNA_INVALIDA");
    expect(await storedRow(site.id)).toEqual(before);
  });
});

describe("POST with external images", () => {
  it("is never refused for an image: 201 with the external URL kept (rehosted later by image-swap)", async () => {
    const { site } = await makeSite({ settings: { logo_url: "https://img.test/missing.png" } });
    expect(site.settings.logo_url).toBe("https://img.test/missing.png");
  });

  it("a media id sent next to an external URL is dropped (the swap sets it); next to a site path it stays", async () => {
    const { site } = await makeSite({
      settings: {
        logo_url: "https://img.test/missing.png",
        logo_media_id: "stale",
        favicon_ico_url: "/favicon.ico",
        favicon_ico_media_id: "kept",
      },
    });
    expect(site.settings).not.toHaveProperty("logo_media_id");
    expect(site.settings.favicon_ico_media_id).toBe("kept");
    expect(JSON.parse((await storedSettings(site.id))!)).toEqual(site.settings);
  });
});

describe("legacy sites with UUID ids", () => {
  it("are reachable by their UUID in any case", async () => {
    const orgId = newId();
    const id = await legacyUuidSite(orgId);
    const res = await api<SiteBody>("GET", `/api/v1/sites/${id.toUpperCase()}`, {
      headers: orgMember(orgId),
    });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(id);
    const other = await api("GET", `/api/v1/sites/${id}`, { headers: orgMember(newId()) });
    expect(other.status).toBe(404);
  });
});

describe("request bodies", () => {
  it("a body over 1 MiB is 413 PAYLOAD_TOO_LARGE and nothing is stored", async () => {
    const { site, owner } = await makeSite();
    const before = await storedRow(site.id);
    const res = await api("PATCH", `/api/v1/sites/${site.id}`, {
      headers: owner,
      body: { settings: { about_html: `<p>${"a".repeat(1024 * 1024)}</p>` } },
    });
    expect(res.status).toBe(413);
    expect(res.body.code).toBe("PAYLOAD_TOO_LARGE");
    expect(await storedRow(site.id)).toEqual(before);
  });

  it("a large body under the limit is accepted", async () => {
    const { site, owner } = await makeSite();
    const res = await api("PATCH", `/api/v1/sites/${site.id}`, {
      headers: owner,
      body: { settings: { about_html: `<p>${"a".repeat(512 * 1024)}</p>` } },
    });
    expect(res.status).toBe(200);
  });

  for (const [label, raw] of [
    ["malformed JSON", "{"],
    ["null", "null"],
    ["a string", '"x"'],
  ] as const) {
    it(`PATCH with ${label} is 400`, async () => {
      const { site, owner } = await makeSite();
      const res = await api("PATCH", `/api/v1/sites/${site.id}`, { headers: owner, rawBody: raw });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe("BAD_REQUEST");
    });
  }
});

describe("by-host enumeration", () => {
  it("a deleted site's host answers exactly like an unknown host", async () => {
    const { site, owner } = await makeSite();
    await api("DELETE", `/api/v1/sites/${site.id}`, { headers: owner });
    const gone = await api("GET", `/api/v1/sites/by-host?host=${site.slug}.sites.localhost`);
    const unknown = await api("GET", `/api/v1/sites/by-host?host=${uniqueSlug("none")}.sites.localhost`);
    expect(gone.status).toBe(404);
    expect(gone.text).toBe(unknown.text);
  });
});
