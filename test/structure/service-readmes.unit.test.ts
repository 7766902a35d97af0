/**
 * Each service's README maps its folders (issue 32): the map has a row for every folder of
 * src/<service>/, every folder below one is named in that folder's row (`render/` in `posts/`'s), and no
 * row names a folder or file that is gone. A folder nobody mapped (identity's 16-file `sso/` had no row)
 * is code a reader cannot find from the README, nor its spec section.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { srcDir } from "./source-files";

/** The Workers' folders; src/lib is shared code, not a service. */
const services = readdirSync(srcDir, { withFileTypes: true })
  .filter((e) => e.isDirectory() && e.name !== "lib")
  .map((e) => e.name);

/** Every folder under a service, `a` and `a/b` (relative, no trailing slash), sorted. */
function foldersOf(service: string): string[] {
  const dir = path.join(srcDir, service);
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join("/"))
    .sort();
}

/** The rows of the README's "## Map" section: the first cell's name (`core/`, `index.ts`) and the whole row. */
function mapRows(readme: string): Map<string, string> {
  const rows = new Map<string, string>();
  let inMap = false;
  for (const line of readme.split("\n")) {
    if (line.startsWith("## ")) inMap = line.startsWith("## Map");
    const first = inMap ? line.match(/^\| `([^`]+)` \|/)?.[1] : undefined;
    if (first) rows.set(first, line);
  }
  return rows;
}

/** The folders a README leaves out: top folders without a row, folders below not named in their top's row. */
function unmapped(folders: string[], rows: Map<string, string>): string[] {
  return folders.filter((folder) => {
    const [top, ...below] = folder.split("/");
    if (below.length === 0) return !rows.has(`${top}/`);
    const row = rows.get(`${top}/`) ?? "";
    return !row.includes(`\`${below.join("/")}/\``) && !row.includes(`\`${folder}/\``);
  });
}

/** The rows that name a folder or file the service no longer has. */
function gone(rows: Map<string, string>, exists: (name: string) => boolean): string[] {
  return [...rows.keys()].filter((name) => !exists(name));
}

describe("service READMEs", () => {
  it("finds the three services with folders", () => {
    expect(services.filter((s) => foldersOf(s).length > 0).sort()).toEqual(["content", "identity", "sites"]);
  });

  it("catch a folder without a row, a folder below not named in its row, and a row for a folder that is gone", () => {
    const rows = mapRows(
      [
        "## Map: spec section and path -> folder",
        "| `core/` | | | the app, `effects/` |",
        "| `posts/` | | | posts |",
        "| `gone/` | | | was here |",
        "## Route -> scope map",
        "| `GET /v1/posts` | ck_ | `posts:read` | read |",
      ].join("\n"),
    );
    const folders = ["core", "core/effects", "posts", "posts/render", "sso"];
    expect(unmapped(folders, rows)).toEqual(["posts/render", "sso"]);
    expect(gone(rows, (name) => folders.includes(name.replace(/\/$/, "")))).toEqual(["gone/"]);
  });

  for (const service of services.filter((s) => foldersOf(s).length > 0)) {
    describe(`src/${service}/README.md`, () => {
      const readmePath = path.join(srcDir, service, "README.md");
      const rows = () => mapRows(readFileSync(readmePath, "utf8"));

      it("exists", () => {
        expect(existsSync(readmePath)).toBe(true);
      });

      it("has a row for every folder and names every folder below one in that folder's row", () => {
        expect(unmapped(foldersOf(service), rows())).toEqual([]);
      });

      it("has no row for a folder or file that is gone", () => {
        expect(gone(rows(), (name) => existsSync(path.join(srcDir, service, name)))).toEqual([]);
      });
    });
  }
});
