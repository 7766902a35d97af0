import { describe, expect, it } from "vitest";
import { call, content, createKey, makeSite, ORIGIN, tenant } from "../support/content-helpers";

describe("GET /v1/site", () => {
  it("returns the key's site as pushed by the sites service", async () => {
    const t = await tenant({ name: "My Blog", default_language: "pt-BR" });
    const res = await call("GET", "/v1/site", { key: t.pk, origin: ORIGIN });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      id: t.site.id,
      org_id: t.site.org_id,
      name: "My Blog",
      default_language: "pt-BR",
      primary_domain: t.site.primary_domain,
    });
    expect((await call("GET", "/v1/site")).status).toBe(401);
  });

  it("a newer push updates the projection; an older one never overwrites it", async () => {
    const site = await makeSite({ name: "v1" });
    const key = await createKey(site, { scopes: ["posts:read"] });
    const later = new Date(Date.now() + 60_000).toISOString();
    await content.syncSite({ ...site, name: "v2", updated_at: later });
    await content.syncSite({ ...site, name: "stale", updated_at: site.updated_at });
    const body = (await (await call("GET", "/v1/site", { key: key.key })).json()) as { name: string };
    expect(body.name).toBe("v2");
  });
});

describe("GET /v1/post-types", () => {
  it("lists the site's types; a pk_ key sees public types only", async () => {
    const t = await tenant();
    await content.definePostType({ site_id: t.site.id, slug: "internal", name: "Internal", public: false });
    await content.definePostType({ site_id: t.site.id, slug: "recipe", name: "Recipes", public: true });
    const ck = (await (await call("GET", "/v1/post-types", { key: t.ck })).json()) as {
      items: { slug: string }[];
    };
    expect(ck.items.map((i) => i.slug)).toEqual(["internal", "page", "post", "recipe"]);
    const pk = (await (await call("GET", "/v1/post-types", { key: t.pk, origin: ORIGIN })).json()) as {
      items: { slug: string; public: boolean }[];
    };
    expect(pk.items.map((i) => i.slug)).toEqual(["page", "post", "recipe"]);
    expect(pk.items.every((i) => i.public)).toBe(true);
  });
});
