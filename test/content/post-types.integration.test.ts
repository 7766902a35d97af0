/**
 * The per-site post type catalogue: `post` and `page` created once with the site, `definePostType` and
 * `removePostType` called over the worker's RPC entrypoint (as the sites service will when applets are
 * installed and uninstalled), and `GET /v1/post-types` reading it.
 */
import { describe, expect, it } from "vitest";
import { contentDbOf } from "../support/content-groups";
import { call, content, createPost, type PostOut, problem, tenant } from "../support/content-helpers";

const ORIGIN = "https://reader.example.test";

async function listed(key: string, publicKey = false) {
  const res = await call("GET", "/v1/post-types", { key, ...(publicKey ? { origin: ORIGIN } : {}) });
  expect(res.status).toBe(200);
  return ((await res.json()) as { items: { slug: string; name: string; public: boolean }[] }).items;
}

describe("post type catalogue", () => {
  it("a site starts with post and page", async () => {
    const t = await tenant();
    expect(await listed(t.ck)).toEqual([
      { slug: "page", name: "Pages", public: true },
      { slug: "post", name: "Posts", public: true },
    ]);
  });

  it("the built-ins are created once: a later push of the site does not re-insert them", async () => {
    const t = await tenant();
    await (await contentDbOf(t.site.id))
      .prepare("DELETE FROM post_types WHERE site_id = ? AND slug = 'page'")
      .bind(t.site.id)
      .run();
    await content.syncSite({ ...t.site, name: "Renamed", updated_at: new Date().toISOString() });
    expect((await listed(t.ck)).map((p) => p.slug)).toEqual(["post"]);
  });

  it("definePostType upserts: a public type is listed to both keys, made private it is listed to ck_ only", async () => {
    const t = await tenant();
    await content.definePostType({ site_id: t.site.id, slug: "recipe", name: "Recipes", public: true });
    expect(await listed(t.pk, true)).toContainEqual({ slug: "recipe", name: "Recipes", public: true });
    await content.definePostType({ site_id: t.site.id, slug: "recipe", name: "Dishes", public: false });
    expect((await listed(t.pk, true)).map((p) => p.slug)).toEqual(["page", "post"]);
    expect(await listed(t.ck)).toContainEqual({ slug: "recipe", name: "Dishes", public: false });
  });

  it("definePostType refuses a malformed slug or name", async () => {
    const t = await tenant();
    for (const input of [
      { slug: "Not A Slug", name: "X", public: true },
      { slug: "ok", name: "", public: true },
      { slug: "ok", name: "x".repeat(101), public: true },
    ]) {
      expect(await content.definePostType({ site_id: t.site.id, ...input })).toMatchObject({ ok: false });
    }
    expect((await listed(t.ck)).map((p) => p.slug)).toEqual(["page", "post"]);
  });

  it("removePostType disables the type: not listed, refused for new posts, its posts kept out of public view", async () => {
    const t = await tenant();
    await content.definePostType({ site_id: t.site.id, slug: "recipe", name: "Recipes", public: true });
    const post = await createPost(t.ck, { title: "Soup", status: "published", post_type: "recipe" });
    const publicRead = () => call("GET", `/v1/posts/${post.id}`, { key: t.pk, origin: ORIGIN });
    expect((await publicRead()).status).toBe(200);

    expect(await content.removePostType({ site_id: t.site.id, slug: "recipe" })).toEqual({
      ok: true,
      removed: true,
    });
    expect((await listed(t.ck)).map((p) => p.slug)).toEqual(["page", "post"]);
    expect((await publicRead()).status).toBe(404);
    // Kept: the source is readable, the row untouched.
    const source = await call("GET", `/v1/posts/${post.id}/source`, { key: t.ck });
    expect(source.status).toBe(200);
    expect(((await source.json()) as PostOut).status).toBe("published");
    const refused = await call("POST", "/v1/posts", {
      key: t.ck,
      body: { title: "New", post_type: "recipe" },
    });
    expect((await problem(refused)).code).toBe("UNKNOWN_POST_TYPE");
    // Removing again changes nothing.
    expect(await content.removePostType({ site_id: t.site.id, slug: "recipe" })).toEqual({
      ok: true,
      removed: false,
    });

    // Installed again: the type and its posts are back.
    await content.definePostType({ site_id: t.site.id, slug: "recipe", name: "Recipes", public: true });
    expect((await publicRead()).status).toBe(200);
  });

  it("removePostType touches only its own site, and never the built-ins", async () => {
    const a = await tenant();
    const b = await tenant();
    await content.definePostType({ site_id: a.site.id, slug: "event", name: "Events", public: true });
    await content.definePostType({ site_id: b.site.id, slug: "event", name: "Events", public: true });
    expect(await content.removePostType({ site_id: a.site.id, slug: "event" })).toEqual({
      ok: true,
      removed: true,
    });
    expect((await listed(b.ck)).map((p) => p.slug)).toContain("event");
    for (const slug of ["post", "page"]) {
      expect(await content.removePostType({ site_id: a.site.id, slug })).toEqual({
        ok: false,
        reason: `the built-in post type '${slug}' cannot be removed`,
      });
    }
    expect((await listed(a.ck)).map((p) => p.slug)).toEqual(["page", "post"]);
  });
});
