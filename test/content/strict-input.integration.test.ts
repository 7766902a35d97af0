/**
 * Nothing a client sends is dropped silently (issue 33), in the content service: an unknown body field is
 * refused and named (`details.path`, every unknown name at that place in `details.unknown`), before any
 * other mistake of the body, before "nothing editable" and before a lookup's 404. `POST /v1/posts` answers
 * it 422 UNKNOWN_FIELD (its spec lists 422 for unprocessable input); every other operation 400
 * BAD_REQUEST. The spec's tolerances (the settings write's ignored members, an import line's `site_id`)
 * are in site-settings.integration.test.ts and bulk.integration.test.ts.
 */
import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import { unknownFieldDetail } from "../../src/lib/input-issues";
import { call, countRows, createPost, ownerHeaders, paragraph, tenant } from "../support/content-helpers";
import { formsSite } from "../support/leads-helpers";
import { inbox, webhooksPath } from "../support/webhook-helpers";

const PROBE = "zz_unknown_probe";

interface Refusal {
  status: number;
  code: string;
  detail?: string;
  details?: { path?: string; unknown?: string[] };
}

async function refusal(res: Response): Promise<Refusal> {
  expect(res.headers.get("content-type")).toContain("application/problem+json");
  const body = (await res.json()) as Refusal;
  expect(body.status).toBe(res.status);
  return body;
}

/** The answer every refusal of an unknown field `path` carries (src/lib/input-issues.ts). */
function namedUnknown(status: number, code: string, path: string, unknown = [path.split(".").at(-1)!]) {
  return { status, code, detail: unknownFieldDetail(path, unknown), details: { path, unknown } };
}

async function expectUnknown(res: Response, status: number, code: string, path: string, unknown?: string[]) {
  expect(await refusal(res)).toMatchObject(namedUnknown(status, code, path, unknown));
}

describe("POST /v1/posts: an unknown field is 422 UNKNOWN_FIELD, named, and nothing is created", () => {
  it("names the field (every unknown one), before any other mistake of the body", async () => {
    const t = await tenant();
    await expectUnknown(
      await call("POST", "/v1/posts", { key: t.ck, body: { title: "Kept?", [PROBE]: true } }),
      422,
      "UNKNOWN_FIELD",
      PROBE,
    );
    // Two unknown fields: both named; the first is the path.
    await expectUnknown(
      await call("POST", "/v1/posts", { key: t.ck, body: { title: "T", body_text: "x", [PROBE]: 1 } }),
      422,
      "UNKNOWN_FIELD",
      "body_text",
      ["body_text", PROBE],
    );
    // No title and a summary of the wrong type too: the unknown field is still what the answer names.
    await expectUnknown(
      await call("POST", "/v1/posts", { key: t.ck, body: { summary: 5, [PROBE]: true } }),
      422,
      "UNKNOWN_FIELD",
      PROBE,
    );
    expect(await countRows("posts", t.site.id)).toBe(0);
  });

  it("other validation failures keep their codes (400 BAD_REQUEST with the path, INVALID_SLUG, …)", async () => {
    const t = await tenant();
    expect(await refusal(await call("POST", "/v1/posts", { key: t.ck, body: {} }))).toMatchObject({
      status: 400,
      code: "BAD_REQUEST",
      details: { path: "title" },
    });
    expect(
      (
        await refusal(
          await call("POST", "/v1/posts", { key: t.ck, body: { title: "T", slug: "Not A Slug" } }),
        )
      ).code,
    ).toBe("INVALID_SLUG");
    // Every declared field together is accepted (nothing here relies on stripping).
    const post = await createPost(t.ck, {
      title: "All fields",
      slug: "all-fields",
      summary: "s",
      blocks_json: paragraph("x"),
      status: "draft",
      published_at: null,
      language: "en",
      post_type: "post",
      author_slug: null,
      featured_image_id: null,
      category_slugs: ["news"],
      tag_slugs: ["a"],
      access: "public",
    });
    expect(post.slug).toBe("all-fields");
  });

  it("with an Idempotency-Key: the refusal reserves nothing, the key then creates the valid body once", async () => {
    const t = await tenant();
    const headers = { "idempotency-key": `strict-${newId()}` };
    const refused = await call("POST", "/v1/posts", {
      key: t.ck,
      body: { title: "Once", [PROBE]: true },
      headers,
    });
    await expectUnknown(refused, 422, "UNKNOWN_FIELD", PROBE);
    const first = await call("POST", "/v1/posts", { key: t.ck, body: { title: "Once" }, headers });
    expect(first.status).toBe(201);
    expect(await countRows("posts", t.site.id)).toBe(1);
  });
});

describe("every other JSON operation of a key: 400 BAD_REQUEST naming the field", () => {
  it("PATCH /v1/posts/{reference}: before NOTHING_EDITABLE and before the 404; the post is unchanged", async () => {
    const t = await tenant();
    const post = await createPost(t.ck, { title: "Before", blocks_json: paragraph("x") });
    const patch = (reference: string, body: unknown) =>
      call("PATCH", `/v1/posts/${reference}`, { key: t.ck, body });
    await expectUnknown(await patch(post.id, { [PROBE]: true }), 400, "BAD_REQUEST", PROBE);
    await expectUnknown(await patch(post.id, { title: "After", [PROBE]: true }), 400, "BAD_REQUEST", PROBE);
    await expectUnknown(await patch(newId(), { [PROBE]: true }), 400, "BAD_REQUEST", PROBE);
    const source = await call("GET", `/v1/posts/${post.id}/source`, { key: t.ck });
    expect(((await source.json()) as { title: string }).title).toBe("Before");
    // Without the unknown field, the same edit applies, and an empty one is still NOTHING_EDITABLE.
    expect((await patch(post.id, { title: "After" })).status).toBe(200);
    expect((await refusal(await patch(post.id, {}))).code).toBe("NOTHING_EDITABLE");
  });

  it("PATCH /v1/posts/{reference}/seo: before NOTHING_EDITABLE and the 404; taxonomy is the post's, not SEO's", async () => {
    const t = await tenant();
    const post = await createPost(t.ck, { title: "Seo", status: "published" });
    const patch = (reference: string, body: unknown) =>
      call("PATCH", `/v1/posts/${reference}/seo`, { key: t.ck, body });
    await expectUnknown(await patch(post.id, { [PROBE]: true }), 400, "BAD_REQUEST", PROBE);
    await expectUnknown(
      await patch(post.id, { meta_title: "M", category_slugs: ["news"] }),
      400,
      "BAD_REQUEST",
      "category_slugs",
    );
    await expectUnknown(await patch(newId(), { [PROBE]: true }), 400, "BAD_REQUEST", PROBE);
    expect((await patch(post.id, { meta_title: "M" })).status).toBe(200);
  });

  it("POST /v1/posts/{reference}/preview: the body is read before the post is looked up", async () => {
    const t = await tenant();
    const post = await createPost(t.ck, { title: "Draft" });
    const preview = (reference: string, body: unknown) =>
      call("POST", `/v1/posts/${reference}/preview`, { key: t.ck, body });
    await expectUnknown(await preview(newId(), { [PROBE]: true }), 400, "BAD_REQUEST", PROBE);
    await expectUnknown(await preview(post.id, { expires_in: 120, ttl: 5 }), 400, "BAD_REQUEST", "ttl");
    expect((await preview(post.id, { expires_in: 120 })).status).toBe(200);
  });

  it("POST /v1/authors and PATCH /v1/authors/{slug}: before NOTHING_EDITABLE and the 404", async () => {
    const t = await tenant();
    await expectUnknown(
      await call("POST", "/v1/authors", { key: t.ck, body: { name: "Ana", email: "ana@example.test" } }),
      400,
      "BAD_REQUEST",
      "email",
    );
    const created = await call("POST", "/v1/authors", { key: t.ck, body: { name: "Ana" } });
    expect(created.status).toBe(201);
    const { slug } = (await created.json()) as { slug: string };
    await expectUnknown(
      await call("PATCH", `/v1/authors/${slug}`, { key: t.ck, body: { [PROBE]: true } }),
      400,
      "BAD_REQUEST",
      PROBE,
    );
    await expectUnknown(
      await call("PATCH", "/v1/authors/nobody-here", { key: t.ck, body: { [PROBE]: true } }),
      400,
      "BAD_REQUEST",
      PROBE,
    );
  });
});

describe("site staff's JSON operations: 400 BAD_REQUEST naming the field, nothing created", () => {
  it("API keys, webhooks and forms", async () => {
    const site = await formsSite();
    const headers = ownerHeaders(site);
    await expectUnknown(
      await call("POST", `/api/v1/sites/${site.id}/api-keys`, {
        headers,
        body: { name: "k", kind: "secret", scopes: ["posts:read"], expires_at: "2030-01-01" },
      }),
      400,
      "BAD_REQUEST",
      "expires_at",
    );
    await expectUnknown(
      await call("POST", webhooksPath(site.id), {
        headers,
        body: { url: inbox().url, events: ["post.published"], secret: "mine" },
      }),
      400,
      "BAD_REQUEST",
      "secret",
    );
    await expectUnknown(
      await call("POST", `/api/v1/sites/${site.id}/forms`, {
        headers,
        body: { name: "Contact", fields: [{ name: "email", type: "email" }], redirect_url: "/thanks" },
      }),
      400,
      "BAD_REQUEST",
      "redirect_url",
    );
    // Inside an array item: the path names the item.
    await expectUnknown(
      await call("POST", `/api/v1/sites/${site.id}/forms`, {
        headers,
        body: { name: "Contact", fields: [{ name: "email", type: "email", placeholder: "you@" }] },
      }),
      400,
      "BAD_REQUEST",
      "fields.0.placeholder",
    );
    for (const path of ["api-keys", "webhooks", "forms"]) {
      const list = await call("GET", `/api/v1/sites/${site.id}/${path}`, { headers });
      expect(list.status, path).toBe(200);
      expect(((await list.json()) as { items: unknown[] }).items, path).toEqual([]);
    }
  });
});
