import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");

/** The string literals of the first `const NAME = [ ... ];` array in `text`. */
function arrayLiterals(text: string, name: string): string[] {
  const match = new RegExp(`const ${name} = \\[([^\\]]*)\\]`).exec(text);
  if (!match) throw new Error(`no ${name} array`);
  return [...match[1]!.matchAll(/"([^"]+)"/g)].map((m) => m[1]!);
}

describe("leads:read is never granted by default", () => {
  it("the demo keys `npm start` and `npm run seed` create do not carry it", () => {
    const seed = readFileSync(path.join(root, "scripts/seed.mjs"), "utf8");
    const secret = arrayLiterals(seed, "DEMO_SECRET_SCOPES");
    const pub = arrayLiterals(seed, "PUBLIC_SCOPES");
    expect(secret.length).toBeGreaterThan(0);
    expect(secret).not.toContain("leads:read");
    expect(pub).not.toContain("leads:read");
    // No other literal in the seed grants it either.
    expect(seed).not.toContain('"leads:read"');
  });
});
