// Builds the package into dist/: tsc emits index.js and index.d.ts; the generated API types (.d.ts files,
// which tsc does not copy) go beside them. Run by `npm pack` (prepack) and `npm run build`. Everything it
// needs is this package's own: typescript (devDependencies) and openapi-fetch's types (dependencies), so
// `npm install && npm pack` here works without the platform's root install
// (test/browser/client-pack.test.ts packs a copy of these files alone).
import { execFileSync } from "node:child_process";
import { cpSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
rmSync(path.join(here, "dist"), { recursive: true, force: true });
execFileSync(process.execPath, [tsc, "-p", path.join(here, "tsconfig.json")], { stdio: "inherit" });
cpSync(path.join(here, "src/types"), path.join(here, "dist/types"), { recursive: true });
