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

describe("site:code is never granted by default", () => {
  it("no demo key carries it: script on the live site is asked for by name (issue 19)", () => {
    const seed = readFileSync(path.join(root, "scripts/seed.mjs"), "utf8");
    expect(arrayLiterals(seed, "DEMO_SECRET_SCOPES")).not.toContain("site:code");
    expect(arrayLiterals(seed, "PUBLIC_SCOPES")).not.toContain("site:code");
    expect(seed).not.toContain('"site:code"');
  });

  it("a public key may not carry it", () => {
    // The scopes themselves are the platform's (src/lib/key-scopes.ts); content keeps which a pk_ key may carry.
    const all = readFileSync(path.join(root, "src/lib/key-scopes.ts"), "utf8");
    expect(arrayLiterals(all, "SCOPES")).toContain("site:code");
    const scopes = readFileSync(path.join(root, "src/content/keys/scopes.ts"), "utf8");
    const pub = /PUBLIC_KEY_SCOPES: readonly Scope\[\] = \[([^\]]*)\]/.exec(scopes)![1]!;
    expect(pub).not.toContain("site:code");
  });
});
