import { describe, expect, it } from "vitest";
import { mergeSeo, seoPatch } from "../../src/content/posts/seo";

describe("SEO of a post: the patch", () => {
  it("keeps only the editable keys sent, null included", () => {
    expect(seoPatch({ meta_title: "T", noindex: null, category_slugs: ["x"], site_id: "s" })).toEqual({
      meta_title: "T",
      noindex: null,
    });
  });

  it("a body with no editable key is 400 NOTHING_EDITABLE", () => {
    for (const body of [{}, { category_slugs: ["x"] }, { meta_title: undefined }]) {
      expect(() => seoPatch(body)).toThrow(
        expect.objectContaining({ status: 400, code: "NOTHING_EDITABLE" }),
      );
    }
  });

  it("merges onto the stored SEO: null removes a key, other keys (taxonomy) stay", () => {
    const stored = { meta_title: "Old", og_title: "OG", category_slugs: ["news"] };
    expect(mergeSeo(stored, { meta_title: "New", og_title: null, noindex: true })).toEqual({
      meta_title: "New",
      category_slugs: ["news"],
      noindex: true,
    });
    expect(stored.og_title).toBe("OG");
  });
});
