/**
 * The hosted pages' scripts are TypeScript under src/identity/pages/browser/, bundled by `npm run pages`
 * into src/identity/pages/browser-bundle.json, which the Worker serves. This rebuilds them in memory and
 * fails when the committed file differs (a script changed without `npm run pages`).
 */
import { describe, expect, it } from "vitest";
import { buildPages, bundleText, scriptsInStrings } from "../../scripts/pages.mjs";
import committed from "../../src/identity/pages/browser-bundle.json";

describe("the pages' browser bundle", () => {
  it("is what `npm run pages` builds from src/identity/pages/browser/ (run `npm run pages` when this fails)", async () => {
    const built = await buildPages();
    expect(
      bundleText(committed as Record<string, string>) === bundleText(built),
      "src/identity/pages/browser-bundle.json is stale: run `npm run pages` and commit it",
    ).toBe(true);
    expect(Object.keys(built).sort()).toEqual(Object.keys(committed).sort());
    for (const [name, text] of Object.entries(built))
      expect(committed[name as keyof typeof committed], name).toBe(text);
  }, 60_000);

  it("has one script per served asset, each a self-contained IIFE", async () => {
    expect(Object.keys(committed).sort()).toEqual([
      "account-restore.js",
      "account.js",
      "authorize-undo.js",
      "authorize.js",
      "common.js",
      "confirm.js",
      "disown.js",
      "email-disown.js",
      "invitation-accept.js",
      "magic-link.js",
      "password-reset.js",
      "sign-in.js",
      "sign-up.js",
      "sso.js",
    ]);
    for (const [name, text] of Object.entries(committed as Record<string, string>)) {
      expect(text, name).toMatch(/^"use strict";\n\(\(\) => \{\n/);
      expect(text, name).not.toMatch(/^\s*(import|export)\s/m);
    }
  });

  it("leaves no browser script in a TypeScript string elsewhere in src/identity (it goes under pages/browser/)", () => {
    expect(scriptsInStrings()).toEqual([]);
  });
});
