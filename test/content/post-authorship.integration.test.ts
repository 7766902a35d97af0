/**
 * Issue 34, part 2, through the real content worker: the person is the author (a byline of their display
 * name, identity's by RPC; 422 DISPLAY_NAME_REQUIRED without one), who made what (the source's `created_by`
 * and `updated_by`, the revisions' `made_by`: a key by id and name, a person by user id and display name),
 * the roles' rules on a person's posts over the dashboard routes (403 FORBIDDEN with `details.missing`),
 * `review_requested`, and the `/v1` key API as it was (keys are bound by their scopes only).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import type { SiteProjection } from "../../src/lib/rpc";
import { call, content, createKey, createPost, tenant } from "../support/content-helpers";
import { seedPerson } from "../support/identity-people";

const identityQueue = (env as unknown as { TEST_SITE_TRANSFERRED: Queue }).TEST_SITE_TRANSFERRED;

type Role = "site_contributor" | "site_author" | "site_editor";

/**
 * A person with an account in identity (with a display name, or none), holding `role` on the site: identity
 * holds the membership and a live session too, since a dashboard write re-reads the grant from identity.
 */
async function person(
  site: SiteProjection,
  role: Role,
  displayName: string | null = `P ${newId().slice(-6)}`,
) {
  const seeded = await seedPerson({ displayName, site: [{ site_id: site.id, org_id: site.org_id, role }] });
  return { userId: seeded.userId, displayName, headers: seeded.headers };
}

type Person = Awaited<ReturnType<typeof person>>;

const posts = (site: SiteProjection) => `/api/v1/sites/${site.id}/posts`;

async function dashboard(who: Person, method: string, path: string, body?: unknown) {
  const res = await call(method, path, { headers: who.headers, ...(body !== undefined ? { body } : {}) });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as Record<string, unknown> };
}

async function source(ck: string, id: string) {
  const res = await call("GET", `/v1/posts/${id}/source`, { key: ck });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

function expectForbidden(res: { status: number; body: Record<string, unknown> }, missing: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(403);
  expect(res.body).toMatchObject({ code: "FORBIDDEN", details: { missing } });
}

describe("a person is the author of the posts they write", () => {
  it("bylined with their display name (a persona made on the first post); the author list and RSS show it", async () => {
    const t = await tenant();
    const ada = await person(t.site, "site_author", "Ada Lovelace");
    const made = await dashboard(ada, "POST", posts(t.site), { title: "Notes", status: "published" });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.author).toEqual({ slug: "ada-lovelace", display_name: "Ada Lovelace" });
    const again = await dashboard(ada, "POST", posts(t.site), { title: "More notes" });
    expect(again.body.author).toEqual({ slug: "ada-lovelace", display_name: "Ada Lovelace" });

    const authors = await call("GET", "/v1/authors", { key: t.ck });
    const names = ((await authors.json()) as { items: { slug: string; display_name: string }[] }).items;
    expect(names).toContainEqual(
      expect.objectContaining({ slug: "ada-lovelace", display_name: "Ada Lovelace" }),
    );
    const feed = await content.fetch(new Request(`http://content.test/v1/sites/${t.site.slug}/feed.xml`));
    expect(await feed.text()).toContain("<dc:creator>Ada Lovelace</dc:creator>");
  });

  it("422 DISPLAY_NAME_REQUIRED naming the field when the account has no display name (nothing written)", async () => {
    const t = await tenant();
    const nameless = await person(t.site, "site_editor", null);
    for (const body of [{ title: "Draft" }, { title: "Named", author_slug: "someone" }]) {
      const res = await dashboard(nameless, "POST", posts(t.site), body);
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ code: "DISPLAY_NAME_REQUIRED", details: { field: "display_name" } });
      expect(String(res.body.detail)).toContain("/api/v1/auth/me");
    }
    const list = await dashboard(nameless, "GET", posts(t.site));
    expect(list.body.items).toEqual([]);
  });

  it("a contributor or author bylines only themselves; an editor may name another author", async () => {
    const t = await tenant();
    const keyPost = await createPost(t.ck, { title: "By the key" });
    const keyAuthor = (keyPost.author as { slug: string }).slug;
    const author = await person(t.site, "site_author");
    expectForbidden(
      await dashboard(author, "POST", posts(t.site), { title: "X", author_slug: keyAuthor }),
      "posts:edit_any",
    );
    const editor = await person(t.site, "site_editor");
    const named = await dashboard(editor, "POST", posts(t.site), { title: "Y", author_slug: keyAuthor });
    expect(named.status).toBe(201);
    expect((named.body.author as { slug: string }).slug).toBe(keyAuthor);
  });
});

describe("who made what", () => {
  it("a key's post: created_by and updated_by name the key; another key's edit is the new updated_by and made_by", async () => {
    const t = await tenant();
    const post = await createPost(t.ck, { title: "One" });
    const keyName = "test key";
    const first = await source(t.ck, post.id);
    const me = { kind: "key", id: t.secretKey.id, name: keyName };
    expect(first).toMatchObject({ created_by: me, updated_by: me, review_requested: false });

    const other = await createKey(t.site, { scopes: ["posts:write"], name: "Importer" });
    const edit = await call("PATCH", `/v1/posts/${post.id}`, { key: other.key, body: { title: "Two" } });
    expect(edit.status).toBe(200);
    const second = await source(t.ck, post.id);
    expect(second.created_by).toEqual(me);
    expect(second.updated_by).toEqual({ kind: "key", id: other.id, name: "Importer" });

    const revisions = await call("GET", `/v1/posts/${post.id}/revisions`, { key: t.ck });
    const items = ((await revisions.json()) as { items: { title: string; made_by: unknown }[] }).items;
    expect(items.map((r) => [r.title, r.made_by])).toEqual([
      ["Two", { kind: "key", id: other.id, name: "Importer" }],
      ["One", me],
    ]);
  });

  it("a person's post and an editor's edit: created_by, updated_by and each revision's made_by", async () => {
    const t = await tenant();
    const writer = await person(t.site, "site_contributor", "Cora");
    const editor = await person(t.site, "site_editor", "Eddie");
    const made = await dashboard(writer, "POST", posts(t.site), { title: "Draft 1" });
    const id = made.body.id as string;
    expect((await dashboard(editor, "PATCH", `${posts(t.site)}/${id}`, { title: "Draft 2" })).status).toBe(
      200,
    );
    const src = await dashboard(editor, "GET", `${posts(t.site)}/${id}`);
    expect(src.body).toMatchObject({
      created_by: { kind: "person", id: writer.userId, name: "Cora" },
      updated_by: { kind: "person", id: editor.userId, name: "Eddie" },
    });
    // An SEO edit and a restore are edits too, recorded as such.
    const seo = await dashboard(writer, "PATCH", `${posts(t.site)}/${id}/seo`, { meta_title: "T" });
    expect(seo.status).toBe(200);
    const revisions = await dashboard(writer, "GET", `${posts(t.site)}/${id}/revisions`);
    const made_by = (revisions.body.items as { made_by: { name: string } }[]).map((r) => r.made_by.name);
    expect(made_by).toEqual(["Cora", "Eddie", "Cora"]);
  });
});

describe("an erased account", () => {
  it("who-made-what keeps the user id and says Former author (posts and revisions)", async () => {
    const t = await tenant();
    const gone = await person(t.site, "site_editor", "Gone Person");
    const id = (await dashboard(gone, "POST", posts(t.site), { title: "Theirs" })).body.id as string;
    const keyPost = await createPost(t.ck, { title: "Key's" });
    await dashboard(gone, "PATCH", `${posts(t.site)}/${keyPost.id}`, { title: "Edited by them" });
    await identityQueue.send({ type: "account.deleted", user_id: gone.userId, at: new Date().toISOString() });
    const former = { kind: "person", id: gone.userId, name: "Former author" };
    const createdByName = async () => ((await source(t.ck, id)).created_by as { name: string }).name;
    for (let i = 0; i < 100 && (await createdByName()) !== "Former author"; i++)
      await new Promise((r) => setTimeout(r, 100));
    expect(await source(t.ck, id)).toMatchObject({ created_by: former, updated_by: former });
    expect((await source(t.ck, keyPost.id)).updated_by).toEqual(former);
    const revisions = await call("GET", `/v1/posts/${keyPost.id}/revisions`, { key: t.ck });
    const items = ((await revisions.json()) as { items: { made_by: { name: string } }[] }).items;
    expect(items.map((r) => r.made_by.name)).toEqual(["Former author", "test key"]);
  });
});

describe("the roles' rules on a person's posts", () => {
  it("a contributor writes, edits, marks and deletes its own drafts; never publishes nor touches another's", async () => {
    const t = await tenant();
    const cora = await person(t.site, "site_contributor");
    expectForbidden(
      await dashboard(cora, "POST", posts(t.site), { title: "Live", status: "published" }),
      "posts:publish",
    );
    const draft = await dashboard(cora, "POST", posts(t.site), { title: "Mine" });
    expect(draft.status).toBe(201);
    const id = draft.body.id as string;
    expect((await dashboard(cora, "PATCH", `${posts(t.site)}/${id}`, { title: "Mine 2" })).status).toBe(200);
    expectForbidden(
      await dashboard(cora, "PATCH", `${posts(t.site)}/${id}`, { status: "published" }),
      "posts:publish",
    );

    const marked = await dashboard(cora, "PATCH", `${posts(t.site)}/${id}`, { review_requested: true });
    expect(marked.status).toBe(200);
    expect(marked.body.review_requested).toBe(true);

    const keyDraft = await createPost(t.ck, { title: "The key's" });
    for (const [method, path, body] of [
      ["PATCH", `${posts(t.site)}/${keyDraft.id}`, { title: "Mine now" }],
      ["PATCH", `${posts(t.site)}/${keyDraft.id}/seo`, { meta_title: "x" }],
      ["DELETE", `${posts(t.site)}/${keyDraft.id}`, undefined],
      ["POST", `${posts(t.site)}/${keyDraft.id}/preview`, {}],
      ["POST", `${posts(t.site)}/${keyDraft.id}/revisions/0/restore`, undefined],
    ] as const) {
      expectForbidden(await dashboard(cora, method, path, body), "posts:edit_any");
    }

    expect((await dashboard(cora, "DELETE", `${posts(t.site)}/${id}`)).status).toBe(204);
  });

  it("review requested: listed to editors with review_requested=true, cleared when published; only drafts", async () => {
    const t = await tenant();
    const cora = await person(t.site, "site_contributor");
    const editor = await person(t.site, "site_editor");
    const ready = (await dashboard(cora, "POST", posts(t.site), { title: "Ready" })).body.id as string;
    const notYet = (await dashboard(cora, "POST", posts(t.site), { title: "Not yet" })).body.id as string;
    await dashboard(cora, "PATCH", `${posts(t.site)}/${ready}`, { review_requested: true });

    const listed = await dashboard(editor, "GET", `${posts(t.site)}?review_requested=true`);
    expect((listed.body.items as { id: string }[]).map((p) => p.id)).toEqual([ready]);
    const others = await dashboard(editor, "GET", `${posts(t.site)}?review_requested=false`);
    expect((others.body.items as { id: string }[]).map((p) => p.id)).toEqual([notYet]);
    expect((await source(t.ck, ready)).review_requested).toBe(true);

    const published = await dashboard(editor, "PATCH", `${posts(t.site)}/${ready}`, { status: "published" });
    expect(published.status).toBe(200);
    expect(published.body.review_requested).toBe(false);
    const after = await dashboard(editor, "GET", `${posts(t.site)}?review_requested=true`);
    expect(after.body.items).toEqual([]);

    // Only a draft awaits review.
    const refused = await dashboard(editor, "PATCH", `${posts(t.site)}/${ready}`, { review_requested: true });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe("POST_NOT_DRAFT");
    // The /v1 key API has no such member: refused as unknown.
    const byKey = await call("PATCH", `/v1/posts/${notYet}`, { key: t.ck, body: { review_requested: true } });
    expect(byKey.status).toBe(400);
  });

  it("an author publishes and edits its own published posts, not another's; an editor everyone's", async () => {
    const t = await tenant();
    const author = await person(t.site, "site_author");
    const editor = await person(t.site, "site_editor");
    const contributor = await person(t.site, "site_contributor");
    const own = (await dashboard(author, "POST", posts(t.site), { title: "Out", status: "published" })).body
      .id as string;
    expect((await dashboard(author, "PATCH", `${posts(t.site)}/${own}`, { title: "Out 2" })).status).toBe(
      200,
    );
    const keyLive = await createPost(t.ck, { title: "The key's live post", status: "published" });
    expectForbidden(
      await dashboard(author, "POST", `${posts(t.site)}/${keyLive.id}/unpublish`),
      "posts:edit_any",
    );
    expectForbidden(
      await dashboard(author, "PATCH", `${posts(t.site)}/${keyLive.id}`, { title: "x" }),
      "posts:edit_any",
    );

    // A contributor's draft published by an editor is no longer the contributor's to edit.
    const draft = (await dashboard(contributor, "POST", posts(t.site), { title: "Cora's" })).body
      .id as string;
    expect(
      (await dashboard(editor, "PATCH", `${posts(t.site)}/${draft}`, { status: "published" })).status,
    ).toBe(200);
    expectForbidden(
      await dashboard(contributor, "PATCH", `${posts(t.site)}/${draft}`, { title: "again" }),
      "posts:publish",
    );
    expectForbidden(await dashboard(contributor, "DELETE", `${posts(t.site)}/${draft}`), "posts:publish");

    expect((await dashboard(editor, "POST", `${posts(t.site)}/${keyLive.id}/unpublish`)).status).toBe(200);
    expect((await dashboard(author, "POST", `${posts(t.site)}/${own}/unpublish`)).status).toBe(200);
    expect((await dashboard(editor, "DELETE", `${posts(t.site)}/${own}`)).status).toBe(204);
  });
});

describe("keys: nothing changed", () => {
  it("a posts:write key publishes, edits, unpublishes, restores and deletes posts a person made", async () => {
    const t = await tenant();
    const cora = await person(t.site, "site_contributor");
    const id = (await dashboard(cora, "POST", posts(t.site), { title: "Cora's draft" })).body.id as string;
    const key = t.ck;
    const patched = await call("PATCH", `/v1/posts/${id}`, { key, body: { status: "published" } });
    expect(patched.status).toBe(200);
    expect((await call("PATCH", `/v1/posts/${id}/seo`, { key, body: { meta_title: "M" } })).status).toBe(200);
    expect((await call("POST", `/v1/posts/${id}/revisions/0/restore`, { key })).status).toBe(200);
    expect((await call("POST", `/v1/posts/${id}/unpublish`, { key })).status).toBe(200);
    expect((await call("DELETE", `/v1/posts/${id}`, { key })).status).toBe(204);
  });
});
