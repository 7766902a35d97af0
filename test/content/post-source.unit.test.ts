import { describe, expect, it } from "vitest";
import { postSource } from "../../src/content/posts/source";
import { postRow } from "../support/post-row";

const now = "2026-06-01T00:00:00.000Z";
const row = postRow({
  slug: "draft-post",
  title: "Draft",
  access: "restricted",
  author_user_id: "u",
  updated_at: "2026-05-02T00:00:00.000Z",
});

describe("the editable source of a post", () => {
  it("absent fields are null and absent taxonomy is []", () => {
    expect(postSource(row, now)).toEqual({
      id: row.id,
      slug: "draft-post",
      title: "Draft",
      summary: null,
      status: "draft",
      access: "restricted",
      published_at: null,
      language: "en",
      post_type: "post",
      author_slug: null,
      featured_image_id: null,
      category_slugs: [],
      tag_slugs: [],
      blocks_json: null,
      created_at: row.created_at,
      updated_at: row.updated_at,
      review_requested: false,
      created_by: { kind: "key", id: "k", name: "Demo key" },
      updated_by: null,
    });
  });

  it("blocks_json is the stored document, unrendered and unsanitized", () => {
    const doc = { blocks: [{ type: "paragraph", data: { text: "<script>x</script>" } }] };
    expect(postSource({ ...row, blocks_json: JSON.stringify(doc) }, now).blocks_json).toEqual(doc);
  });

  it("a scheduled post whose date came reads as published", () => {
    const due = { ...row, status: "scheduled" as const, published_at: "2026-05-15T00:00:00.000Z" };
    expect(postSource(due, now).status).toBe("published");
  });

  it("a stored body in an unrecognized format is 502, never an empty document", () => {
    for (const blocks_json of ["<p>html</p>", '{"not":"blocks"}']) {
      expect(() => postSource({ ...row, blocks_json }, now), blocks_json).toThrow(
        expect.objectContaining({
          status: 502,
          code: "STORED_BODY_UNRECOGNIZED",
          detail: "The stored body of this post is in an unrecognized format.",
        }),
      );
    }
  });
});
