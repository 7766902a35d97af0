import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const src = path.resolve(import.meta.dirname, "../../src");
const sources = (readdirSync(src, { recursive: true }) as string[])
  .filter((f) => f.endsWith(".ts"))
  .map((f) => ({ file: f, text: readFileSync(path.join(src, f), "utf8") }));

describe("errors come only from the catalogues", () => {
  it("constructs ApiError only in src/lib/problem.ts (everything else calls its service's fail or problem)", () => {
    const offenders = sources.filter((s) => s.file !== "lib/problem.ts" && /new ApiError\s*\(/.test(s.text));
    expect(offenders.map((s) => s.file)).toEqual([]);
  });

  it("builds error entries only in the catalogue modules", () => {
    const catalogues = [
      "lib/problem.ts",
      "identity/errors.ts",
      "content/errors.ts",
      "sites/errors.ts",
      "gateway/errors.ts",
    ];
    const offenders = sources.filter((s) => !catalogues.includes(s.file) && /defineErrors\s*\(/.test(s.text));
    expect(offenders.map((s) => s.file)).toEqual([]);
  });
});
