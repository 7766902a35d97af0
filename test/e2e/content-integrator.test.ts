/**
 * Issue 22 part B through the gateway only: revisions and their restore, preview links, search with a
 * pk_ key from its origin, the site's sitemap and feed with no key and no Origin, and a webhook test ping
 * the test receiver verifies. Another tenant's key reaches none of it.
 */
import { describe, expect, it } from "vitest";
import { BASE, call, createOrg, createSite, verifiedUser } from "../support/platform";
import { inbox, received, trustSecrets } from "../support/webhook-helpers";

const ORIGIN = "https://reader.example.test";

async function integrator() {
  const owner = await verifiedUser();
  const org = await createOrg(owner.access_token);
  const site = await createSite(owner.access_token, org.id);
  const key = async (kind: "secret" | "public", scopes: string[]) => {
    const res = await call<{ key: string }>("POST", `/api/v1/sites/${site.id}/api-keys`, {
      token: owner.access_token,
      body: { name: kind, kind, scopes, ...(kind === "public" ? { allowed_origins: [ORIGIN] } : {}) },
    });
    expect(res.status).toBe(201);
    return res.body.key;
  };
  return {
    owner,
    site,
    ck: await key("secret", ["posts:write", "posts:read"]),
    pk: await key("public", ["posts:read"]),
  };
}

describe("issue 22 part B through the gateway", () => {
  it("revisions, preview, search, feeds and a webhook ping", async () => {
    const t = await integrator();
    const created = await call<{ id: string; slug: string }>("POST", "/v1/posts", {
      token: t.ck,
      body: { title: "Manatee facts", summary: "gentle", status: "published" },
    });
    expect(created.status).toBe(201);
    const id = created.body.id;
    const edited = await call("PATCH", `/v1/posts/${id}`, { token: t.ck, body: { title: "Manatee myths" } });
    const revisions = await call<{ items: { id: number; title: string }[] }>(
      "GET",
      `/v1/posts/${id}/revisions`,
      {
        token: t.ck,
      },
    );
    expect(revisions.body.items.map((r) => r.title)).toEqual(["Manatee myths", "Manatee facts"]);
    const stale = await call("POST", `/v1/posts/${id}/revisions/${revisions.body.items[1]!.id}/restore`, {
      token: t.ck,
      headers: { "if-match": '"rev-0"' },
    });
    expect(stale.status).toBe(412);
    const restored = await call<{ title: string }>(
      "POST",
      `/v1/posts/${id}/revisions/${revisions.body.items[1]!.id}/restore`,
      { token: t.ck, headers: { "if-match": edited.headers.get("etag")! } },
    );
    expect(restored.body.title).toBe("Manatee facts");

    const draft = await call<{ id: string }>("POST", "/v1/posts", {
      token: t.ck,
      body: { title: "Draft dugong" },
    });
    const link = await call<{ url: string }>("POST", `/v1/posts/${draft.body.id}/preview`, { token: t.ck });
    expect(link.body.url.startsWith(`${BASE}/v1/preview/`)).toBe(true);
    const preview = await call<{ title: string }>("GET", link.body.url.slice(BASE.length));
    expect(preview.status).toBe(200);
    expect(preview.headers.get("x-robots-tag")).toBe("noindex");
    expect(preview.headers.get("cache-control")).toBe("no-store");
    expect(preview.body.title).toBe("Draft dugong");
    expect((await call("DELETE", `/v1/posts/${draft.body.id}/preview`, { token: t.ck })).status).toBe(204);
    expect((await call("GET", link.body.url.slice(BASE.length))).status).toBe(404);

    const found = await call<{ items: { id: string }[] }>("GET", `/v1/search?q=manatee&key=${t.pk}`, {
      headers: { origin: ORIGIN },
    });
    expect(found.status).toBe(200);
    expect(found.body.items.map((i) => i.id)).toEqual([id]);
    const dugong = await call<{ items: unknown[] }>("GET", `/v1/search?q=dugong&key=${t.pk}`, {
      headers: { origin: ORIGIN },
    });
    expect(dugong.body.items).toEqual([]);

    for (const file of ["sitemap.xml", "feed.xml"]) {
      const res = await call<string>("GET", `/v1/sites/${t.site.slug}/${file}`);
      expect(res.status, file).toBe(200);
      expect(res.body, file).toContain(`/${created.body.slug}<`);
      expect(res.body, file).not.toContain("dugong");
    }

    const { box, url } = inbox();
    const hook = await call<{ id: string; secret: string }>("POST", `/api/v1/sites/${t.site.id}/webhooks`, {
      token: t.owner.access_token,
      body: { url, events: ["post.deleted"] },
    });
    expect(hook.status).toBe(201);
    await trustSecrets(box, [hook.body.secret]);
    const ping = await call<{ delivered: boolean; status_code: number }>(
      "POST",
      `/api/v1/sites/${t.site.id}/webhooks/${hook.body.id}/test`,
      { token: t.owner.access_token },
    );
    expect(ping.body).toMatchObject({ delivered: true, status_code: 204 });
    expect((await received(box))[0]!.verified).toBe(true);
  });

  it("another tenant's key, or no session, reaches none of it", async () => {
    const a = await integrator();
    const b = await integrator();
    const post = await call<{ id: string }>("POST", "/v1/posts", {
      token: a.ck,
      body: { title: "Walled walrus" },
    });
    for (const [method, path] of [
      ["GET", `/v1/posts/${post.body.id}/revisions`],
      ["POST", `/v1/posts/${post.body.id}/revisions/0/restore`],
      ["POST", `/v1/posts/${post.body.id}/preview`],
      ["DELETE", `/v1/posts/${post.body.id}/preview`],
    ] as const) {
      expect((await call(method, path, { token: b.ck })).status, path).toBe(404);
    }
    const search = await call<{ items: unknown[] }>("GET", "/v1/search?q=walrus", { token: b.ck });
    expect(search.body.items).toEqual([]);
    const hook = await call<{ id: string }>("POST", `/api/v1/sites/${a.site.id}/webhooks`, {
      token: a.owner.access_token,
      body: { url: inbox().url, events: ["post.published"] },
    });
    const path = `/api/v1/sites/${a.site.id}/webhooks/${hook.body.id}/test`;
    expect((await call("POST", path)).status).toBe(401);
    expect((await call("POST", path, { token: b.owner.access_token })).status).toBe(404);
  });
});
