/**
 * Node-side loader of the public attack corpora (../shared/corpora) and the legitimate SVG corpus
 * (simple-icons), handed to the workers as a JSON binding because tests run inside workerd, which has no
 * file system. Tests read it with `testCorpora()` from `test/support/corpora-binding.ts`.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Corpora, SpecTexts } from "./corpora-types.ts";
import { root } from "./workers.ts";

const corporaDir = path.resolve(root, "../shared/corpora");

export async function loadCorpora(): Promise<Corpora> {
  const mod = (await import(pathToFileURL(path.join(corporaDir, "xss/dompurify-fixtures.mjs")).href)) as {
    default: { title: string; payload: string }[];
  };
  const xss = mod.default.map((f) => ({ title: f.title, payload: f.payload }));
  const svgDir = path.join(corporaDir, "svg-malicious");
  const svgMalicious = readdirSync(svgDir)
    .filter((f) => f.endsWith(".svg"))
    .map((name) => ({ name, svg: readFileSync(path.join(svgDir, name), "utf8") }));
  const iconsDir = path.join(root, "node_modules/simple-icons/icons");
  const simpleIcons = readdirSync(iconsDir)
    .filter((f) => f.endsWith(".svg"))
    .map((f) => ({ slug: f.slice(0, -4), svg: readFileSync(path.join(iconsDir, f), "utf8") }));
  return { xss, svgMalicious, simpleIcons };
}

/** The specs, ARCHITECTURE.md (../shared) and docs/not-built.md, for the spec-coverage tests. */
export function loadSpecTexts(): SpecTexts {
  const shared = path.resolve(root, "../shared");
  const read = (file: string) => readFileSync(file, "utf8");
  return {
    identity: read(path.join(shared, "spec/identity.md")),
    content: read(path.join(shared, "spec/content.md")),
    sites: read(path.join(shared, "spec/sites.md")),
    architecture: read(path.join(shared, "ARCHITECTURE.md")),
    notBuilt: read(path.join(root, "docs/not-built.md")),
  };
}
