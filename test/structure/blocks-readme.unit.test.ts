/**
 * The block table of src/content/README.md is the block catalogue (issue 33): generated from
 * src/content/posts/blocks/catalogue.ts (readme-table.ts), so a type or field added there without the README
 * fails here. Regenerate the table between the markers with `blockCatalogueTable()`.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { blockCatalogueTable } from "../../src/content/posts/blocks/readme-table";
import { srcDir } from "./source-files";

const START = "<!-- blocks:start (generated from src/content/posts/blocks/catalogue.ts) -->";
const END = "<!-- blocks:end -->";

describe("content README: the block catalogue", () => {
  it("the table between the markers is the catalogue's", () => {
    const readme = readFileSync(path.join(srcDir, "content", "README.md"), "utf8");
    const start = readme.indexOf(START);
    const end = readme.indexOf(END);
    expect(start, "the README has the blocks markers").toBeGreaterThan(-1);
    expect(end).toBeGreaterThan(start);
    expect(readme.slice(start + START.length, end).trim()).toBe(blockCatalogueTable());
  });
});
