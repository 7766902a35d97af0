import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import { contentDbOf } from "../support/content-groups";
import { call, createKey, createPost, ORIGIN, seedMedia, tenant } from "../support/content-helpers";
import { testSpecs } from "../support/corpora-binding";
import { createForm, formsSite, leadsKey, seedLeads } from "../support/leads-helpers";
import { builtSpecOperations, hasPathParameter } from "../support/spec-operations";

/**
 * The request each built by-id operation of the spec needs beyond its path (the routes themselves come
 * from the spec, so a new by-id operation cannot be left out of the walls).
 */
const BY_ID_REQUESTS: Record<string, { body?: unknown }> = {
  "GET /v1/posts/{reference}": {},
  "PATCH /v1/posts/{reference}": { body: { title: "hijack" } },
  "POST /v1/posts/{reference}/unpublish": {},
  "GET /v1/posts/{reference}/seo": {},
  "PATCH /v1/posts/{reference}/seo": { body: { meta_title: "hijack" } },
  "GET /v1/posts/{reference}/source": {},
  "GET /v1/media/{id}": {},
  "DELETE /v1/media/{id}": {},
  "GET /v1/leads/{id}": {},
};

interface ByIdRoute {
  name: string;
  method: string;
  path: (ref: string) => string;
  body: unknown;
}

const byIdOperations = builtSpecOperations(testSpecs(), "content").filter(hasPathParameter);

function byIdRoutes(belongs: (path: string) => boolean): ByIdRoute[] {
  return byIdOperations
    .filter((op) => belongs(op.path))
    .map((op) => {
      const name = `${op.method} ${op.path}`;
      return {
        name,
        method: op.method,
        path: (ref) => op.path.replace(/\{[^}]+\}/, ref),
        body: BY_ID_REQUESTS[name]?.body,
      };
    });
}

const isPostRoute = (path: string) => path.startsWith("/v1/posts/{reference}");
const isMediaRoute = (path: string) => path.startsWith("/v1/media/{id}");
const isLeadRoute = (path: string) => path.startsWith("/v1/leads/{id}");
const postRoutes = byIdRoutes(isPostRoute);
const mediaRoutes = byIdRoutes(isMediaRoute);
const leadRoutes = byIdRoutes(isLeadRoute);

describe("the walled routes are the spec's by-id operations", () => {
  it("every built by-id operation of the spec has a request here and a wall below", () => {
    const names = byIdOperations.map((op) => `${op.method} ${op.path}`);
    expect(
      names.filter((n) => !(n in BY_ID_REQUESTS)),
      "by-id operations without a request",
    ).toEqual([]);
    expect(
      Object.keys(BY_ID_REQUESTS).filter((n) => !names.includes(n)),
      "requests of no operation",
    ).toEqual([]);
    expect(
      byIdOperations
        .filter((op) => !isPostRoute(op.path) && !isMediaRoute(op.path) && !isLeadRoute(op.path))
        .map((op) => op.path),
      "by-id operations no wall covers",
    ).toEqual([]);
    expect(postRoutes.length).toBeGreaterThanOrEqual(6);
    expect(mediaRoutes.length).toBeGreaterThanOrEqual(2);
    expect(leadRoutes.length).toBeGreaterThanOrEqual(1);
  });
});

describe("tenant walls: site A's key against site B's posts", () => {
  it("every post route answers B's ids and slugs exactly like missing ones, and changes nothing", async () => {
    const a = await tenant();
    const b = await tenant();
    const full = await createKey(a.site, {
      scopes: ["posts:write", "posts:read", "seo:read", "seo:write"],
    });
    const bPublished = await createPost(b.ck, {
      title: "B published",
      slug: "b-published",
      status: "published",
    });
    const bDraft = await createPost(b.ck, { title: "B draft", slug: "b-draft" });
    for (const { method, path, body } of postRoutes) {
      const missingId = await call(method, path(newId()), { key: full.key, body });
      const missingSlug = await call(method, path("no-such-post"), { key: full.key, body });
      expect(missingId.status).toBe(404);
      const missingIdBody = await missingId.text();
      expect(await missingSlug.text()).toBe(missingIdBody);
      for (const ref of [bPublished.id, bPublished.slug, bDraft.id, bDraft.slug]) {
        const res = await call(method, path(ref), { key: full.key, body });
        expect(res.status, `${method} ${path(ref)}`).toBe(404);
        expect(await res.text()).toBe(missingIdBody);
      }
    }
    const stillB = (await (await call("GET", `/v1/posts/${bPublished.id}/source`, { key: b.ck })).json()) as {
      title: string;
      status: string;
    };
    expect(stillB).toMatchObject({ title: "B published", status: "published" });
  });

  it("a soft-deleted post answers exactly like a missing one on every route, and is in no listing", async () => {
    const t = await tenant();
    const gone = await createPost(t.ck, { title: "Gone", slug: "gone", status: "published" });
    await (await contentDbOf(t.site.id))
      .prepare("UPDATE posts SET status = 'deleted' WHERE id = ?")
      .bind(gone.id)
      .run();
    for (const { method, path, body } of postRoutes) {
      const missing = await call(method, path(newId()), { key: t.ck, body });
      const missingBody = await missing.text();
      for (const ref of [gone.id, gone.slug]) {
        const res = await call(method, path(ref), { key: t.ck, body });
        expect(res.status, `${method} ${path(ref)}`).toBe(404);
        expect(await res.text()).toBe(missingBody);
      }
    }
    const pub = await call("GET", `/v1/posts/${gone.id}`, { key: t.pk, origin: ORIGIN });
    expect(pub.status).toBe(404);
    const listed = (await (
      await call("GET", "/v1/posts?status=draft,scheduled,published,archived", { key: t.ck })
    ).json()) as { items: unknown[] };
    expect(listed.items).toEqual([]);
    const row = await (await contentDbOf(t.site.id))
      .prepare("SELECT status, title FROM posts WHERE id = ?")
      .bind(gone.id)
      .first<{ status: string; title: string }>();
    expect(row).toEqual({ status: "deleted", title: "Gone" });
  });

  it("every media route answers B's asset ids exactly like missing ones, and B keeps its asset", async () => {
    const a = await tenant();
    const b = await tenant();
    const aKey = await createKey(a.site, { scopes: ["media:read", "media:write"] });
    const bKey = await createKey(b.site, { scopes: ["media:read"] });
    const mediaB = await seedMedia(b.site.id);
    for (const { name, method, path, body } of mediaRoutes) {
      const missing = await call(method, path(newId()), { key: aKey.key, body });
      expect(missing.status, name).toBe(404);
      const res = await call(method, path(mediaB), { key: aKey.key, body });
      expect(res.status, name).toBe(404);
      expect(await res.text()).toBe(await missing.text());
    }
    expect((await call("GET", `/v1/media/${mediaB}`, { key: bKey.key })).status).toBe(200);
  });

  it("every lead route answers B's lead ids exactly like missing ones, and B keeps reading its lead", async () => {
    const a = await formsSite();
    const b = await formsSite();
    const formB = await createForm(b);
    await seedLeads(b.id, formB.id, 1);
    const leadB = (await (
      await contentDbOf(b.id)
    )
      .prepare("SELECT id FROM leads WHERE site_id = ?")
      .bind(b.id)
      .first<{ id: string }>())!.id;
    const aKey = await leadsKey(a, ["leads:read"]);
    for (const { name, method, path, body } of leadRoutes) {
      const missing = await call(method, path(newId()), { key: aKey, body });
      expect(missing.status, name).toBe(404);
      const res = await call(method, path(leadB), { key: aKey, body });
      expect(res.status, name).toBe(404);
      expect(await res.text()).toBe(await missing.text());
    }
    expect((await call("GET", `/v1/leads/${leadB}`, { key: await leadsKey(b, ["leads:read"]) })).status).toBe(
      200,
    );
  });

  it("B's media never resolves in A's posts: image blocks and covers", async () => {
    const a = await tenant();
    const b = await tenant();
    const mediaB = await seedMedia(b.site.id);
    const cover = await call("POST", "/v1/posts", {
      key: a.ck,
      body: { title: "Cover", featured_image_id: mediaB },
    });
    const missing = await call("POST", "/v1/posts", {
      key: a.ck,
      body: { title: "Cover", featured_image_id: newId() },
    });
    expect(cover.status).toBe(422);
    expect(await cover.text()).toBe(await missing.text());
    const post = await createPost(a.ck, {
      title: "Borrowed",
      status: "published",
      blocks_json: { blocks: [{ type: "image", data: { media_id: mediaB, caption: "theirs" } }] },
    });
    const detail = (await (await call("GET", `/v1/posts/${post.id}`, { key: a.ck })).json()) as {
      content_html: string;
    };
    expect(detail.content_html).not.toContain(b.site.id);
    expect(detail.content_html).not.toContain(mediaB);
  });

  it("listings of A never contain B's posts, in either mode", async () => {
    const a = await tenant();
    const b = await tenant();
    await createPost(b.ck, { title: "B1", status: "published" });
    await createPost(b.ck, { title: "B2" });
    const pub = (await (await call("GET", "/v1/posts", { key: a.ck })).json()) as { items: unknown[] };
    const auth = (await (await call("GET", "/v1/posts?status=draft,published", { key: a.ck })).json()) as {
      items: unknown[];
    };
    expect(pub.items).toEqual([]);
    expect(auth.items).toEqual([]);
  });

  it("GET /v1/site answers the key's own site only", async () => {
    const a = await tenant();
    const b = await tenant();
    const site = (await (await call("GET", "/v1/site", { key: a.ck })).json()) as { id: string };
    expect(site.id).toBe(a.site.id);
    expect(site.id).not.toBe(b.site.id);
  });
});
