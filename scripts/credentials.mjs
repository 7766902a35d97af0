// `npm run credentials`: writes docs/decisions/credentials.md from the credential registries
// (src/<service>/credentials.ts, issue 31) with `renderCredentialsDoc` (src/lib/credentials.ts). The
// registries are TypeScript: esbuild bundles them (pure data, no bindings) into one ES module in memory,
// which Node imports. Committed; test/structure/credentials-doc.unit.test.ts fails when the file is stale.
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const docPath = path.join(root, "docs/decisions/credentials.md");
const SERVICES = ["identity", "content", "sites"];

/** The registries that exist, in the services' order (the doc's order). */
export function registryFiles() {
  return SERVICES.map((s) => `src/${s}/credentials.ts`).filter((f) => existsSync(path.join(root, f)));
}

/** The text of docs/decisions/credentials.md as the registries say it now. */
export async function renderDoc() {
  const files = registryFiles();
  const entry = [
    'import { renderCredentialsDoc } from "./src/lib/credentials.ts";',
    ...files.map((f, i) => `import { CREDENTIALS as r${i} } from "./${f}";`),
    `export default renderCredentialsDoc([${files.map((_, i) => `r${i}`).join(", ")}]);`,
  ].join("\n");
  const result = await build({
    stdin: { contents: entry, resolveDir: root, loader: "ts", sourcefile: "credentials-doc.ts" },
    bundle: true,
    write: false,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    logLevel: "error",
  });
  const [output] = result.outputFiles;
  const module = await import(`data:text/javascript;base64,${Buffer.from(output.text).toString("base64")}`);
  return module.default;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeFileSync(docPath, await renderDoc());
  console.log(`wrote ${path.relative(root, docPath)}`);
}
