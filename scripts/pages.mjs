// `npm run pages`: bundles the hosted pages' browser scripts (src/identity/pages/browser/*.ts, one entry per
// served asset `/auth/assets/<name>.js`) with esbuild into src/identity/pages/browser-bundle.json (asset
// name -> JS text), the one generated file the identity Worker imports in every runtime (vitest in workerd,
// `npm start`, `wrangler deploy`). Committed; test/identity/pages-bundle.unit.test.ts fails when it is stale.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const sourceDir = path.join(root, "src/identity/pages/browser");
export const bundlePath = path.join(root, "src/identity/pages/browser-bundle.json");

/** Every page script by its asset name (`sign-in.ts` -> `sign-in.js`), in name order. */
export async function buildPages() {
  const entries = readdirSync(sourceDir)
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))
    .sort();
  const out = {};
  for (const file of entries) {
    const result = await build({
      absWorkingDir: root,
      entryPoints: [path.join("src/identity/pages/browser", file)],
      bundle: true,
      write: false,
      format: "iife",
      platform: "browser",
      target: "es2022",
      minify: false,
      sourcemap: false,
      legalComments: "none",
      logLevel: "error",
    });
    const [output] = result.outputFiles;
    out[file.replace(/\.ts$/, ".js")] = output.text;
  }
  return out;
}

/**
 * Files of src/identity outside browser/ that hold browser code in a string (what the bundle replaced):
 * `file:line` of each DOM call. Kept empty by the freshness test.
 */
export function scriptsInStrings() {
  const identity = path.join(root, "src/identity");
  const dom =
    /\bdocument\.(getElementById|querySelector)|\.addEventListener\(|\bwindow\.(Auth|SignIn)\s*[.=;]/;
  return readdirSync(identity, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts") && !path.join(identity, f).startsWith(`${sourceDir}${path.sep}`))
    .flatMap((f) =>
      readFileSync(path.join(identity, f), "utf8")
        .split("\n")
        .flatMap((line, i) => (dom.test(line) ? [`src/identity/${f}:${i + 1}`] : [])),
    )
    .sort();
}

/** The file's text: stable key order, one trailing newline. */
export function bundleText(scripts) {
  return `${JSON.stringify(scripts, null, 2)}\n`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeFileSync(bundlePath, bundleText(await buildPages()));
  console.log(`wrote ${path.relative(root, bundlePath)}`);
}
