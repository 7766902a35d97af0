import { describe, expect, it } from "vitest";
import { z } from "zod";
import { describeIssues, jsonPath } from "../../src/lib/input-issues";

const Body = z.strictObject({
  title: z.string(),
  seo: z.strictObject({ meta_title: z.string().optional() }).optional(),
  blocks: z.array(z.strictObject({ type: z.string() })).optional(),
});

const issues = (value: unknown) => {
  const parsed = Body.safeParse(value);
  if (parsed.success) throw new Error("expected a refusal");
  return parsed.error.issues;
};

describe("describeIssues", () => {
  it("names an unknown field before a missing one, with its dotted path", () => {
    const told = describeIssues(issues({ titel: "x" }));
    expect(told.unknownField).toBe(true);
    expect(told.details).toEqual({ path: "titel", unknown: ["titel"] });
    expect(told.detail).toBe(
      'Unknown field "titel": nothing a client sends is dropped; remove it or check its spelling.',
    );
  });

  it("names nested and array places, and every unknown name at that place", () => {
    const nested = describeIssues(issues({ title: "t", seo: { meta_titel: "x", extra: 1 } }));
    expect(nested.details).toEqual({ path: "seo.meta_titel", unknown: ["meta_titel", "extra"] });
    expect(nested.detail).toMatch(/^Unknown fields "meta_titel", "extra" \(at seo\)/);
    const inList = describeIssues(issues({ title: "t", blocks: [{ type: "p" }, { type: "p", x: 1 }] }));
    expect(inList.details?.path).toBe("blocks.1.x");
  });

  it("keeps the first issue's path and message for any other mistake", () => {
    const told = describeIssues(issues({ title: 5 }));
    expect(told.unknownField).toBe(false);
    expect(told.details).toEqual({ path: "title" });
    expect(told.detail).toMatch(/^title: /);
    expect(describeIssues([])).toEqual({ detail: "invalid request", unknownField: false });
  });

  it("writes a path as dots, array indexes included", () => {
    expect(jsonPath(["a", 0, "b"])).toBe("a.0.b");
    expect(jsonPath([])).toBe("");
  });
});
