/**
 * Issue 31: the declared settings schema (src/sites/site/settings/schema.ts) holds every key the specs
 * name for the settings document, content's allowlist included (its SEO keys: test/sites/settings-schema.unit.test.ts).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { declaredPaths, SETTINGS_SCHEMA } from "../../src/sites/site/settings/schema";
import { specDir } from "./spec-errors";

const spec = (name: string) => readFileSync(path.join(specDir, `${name}.md`), "utf8");
const declared = new Set(declaredPaths().map((p) => p.path));

describe("the declared settings schema", () => {
  it("declares every top-level key the sites spec names for the settings document", () => {
    const row = spec("sites")
      .split("\n")
      .find((line: string) => line.startsWith("| Settings |"));
    expect(row).toBeDefined();
    // `key` or `key` (with `child`, `child`): the children are the key's.
    const named: string[] = [];
    for (const m of row!.matchAll(/`([a-z_*]+)`(?: \(with ([^)]*)\))?/g)) {
      named.push(m[1]!);
      for (const child of m[2]?.matchAll(/`([a-z_]+)`/g) ?? []) named.push(`${m[1]}.${child[1]}`);
    }
    // The row also names `cookies` without backticks.
    expect(row).toContain(" cookies,");
    named.push("cookies");
    expect(named).toContain("seo.default_og_image");
    expect(named.length).toBeGreaterThan(15);
    for (const key of named) {
      if (key.includes("*")) {
        const re = new RegExp(`^${key.replace("*", "[a-z]+")}$`);
        expect(
          Object.keys(SETTINGS_SCHEMA.fields).some((k) => re.test(k)),
          key,
        ).toBe(true);
      } else {
        expect(declared.has(key), key).toBe(true);
      }
    }
  });

  it("declares the nested keys the sites spec names", () => {
    for (const p of [
      "seo.default_og_image",
      "legal.perfil",
      "legal.setor",
      "header.model",
      "footer.model",
      "header.cta",
      "footer.cta",
      "customization.theme_base",
      "customization.typography.font_primary",
      "customization.typography.font_secondary",
      "customization.typography.line_height",
      "customization.typography.letter_spacing",
      "customization.layout.radius",
      "logo.version",
      "logo.alt",
      "logo.width",
      "logo.height",
      "logo.light.svg_markup",
      "logo.dark.sources[].url",
      "modals[].rules.frequency.per",
      "applets.*.enabled",
      "applets.*.installed_at",
      "home.blocks[].source.filter.language",
    ]) {
      expect(declared.has(p), p).toBe(true);
    }
  });

  it("declares the keys content's spec names: its allowlist, and those a key never reads", () => {
    const update = spec("content")
      .split("\n")
      .find((line: string) => line.includes("| Update site settings |"));
    const allowlist = [
      ...update!
        .split("(keys")[1]!
        .split(")")[0]!
        .matchAll(/`([a-z_]+)`/g),
    ].map((m) => m[1]!);
    expect(allowlist).toContain("language_url_mode");
    for (const key of allowlist) expect(declared.has(key), key).toBe(true);
    const row = spec("content")
      .split("\n")
      .find((line: string) => line.includes("| Read editable site settings |"));
    const legacy = [...row!.split("Left out")[1]!.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!);
    expect(legacy).toContain("custom_css");
    for (const key of legacy) expect(declared.has(key), key).toBe(true);
  });
});
