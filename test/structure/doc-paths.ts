/**
 * The path-like names of comments, READMEs and docs/, and whether each still names something of the
 * repository (Node only; `doc-paths.unit.test.ts`). A comment that points at a file which moved sends the
 * next reader, and the next reviewer of a security check, to nothing or to the wrong code.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { root } from "./source-files";

/** The repository as git sees it: committed files and new ones not ignored (another engineer's new file counts). */
export function repositoryFiles(): string[] {
  const out = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "-z"], {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  return [...new Set(out.split("\0").filter((f) => f && existsSync(path.join(root, f))))].sort();
}

/** A listed file's text; a file removed since the listing (another engineer's, mid-run) reads as empty. */
export function readRepositoryFile(file: string): string {
  try {
    return readFileSync(path.join(root, file), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "";
    throw error;
  }
}

function committedUnder(folder: string): string[] {
  return execFileSync("git", ["ls-files", "-z", "--", folder], { cwd: root, encoding: "utf8" })
    .split("\0")
    .filter(Boolean);
}

/** Files and folders (`a/b`, no trailing slash) of the repository. */
function entriesOf(files: string[]): Set<string> {
  const entries = new Set<string>();
  for (const file of files) {
    const parts = file.split("/");
    for (let i = 1; i <= parts.length; i++) entries.add(parts.slice(0, i).join("/"));
  }
  return entries;
}

/**
 * Named but never committed: each entry is local or generated, so the name cannot resolve in a clean clone.
 * `when` (if given) says while the allowance holds.
 */
export const LOCAL_ONLY: { prefix: string; reason: string; when?: () => boolean }[] = [
  {
    prefix: ".wrangler/",
    reason:
      "wrangler's local state, the seed's demo session and the generated production configs (git-ignored)",
  },
  {
    prefix: "deploy/production.json",
    reason: "the operator's settings, copied from deploy/production.example.json, never committed",
  },
  {
    prefix: "test-artifacts/",
    reason: "the browser tests' screenshots and the repeat runs' summaries (git-ignored)",
  },
  {
    prefix: "bench/results/",
    reason:
      "`npm run bench`'s reports (git-ignored); once results are committed, a named one must be among them",
    when: () => committedUnder("bench/results").length === 0,
  },
];

/** Generated files: their comments are the generator's, not ours. */
const GENERATED = [
  "types/runtime.d.ts", // `wrangler types`: workerd's runtime types
  "packages/client/src/types/", // openapi-typescript, from the three OpenAPI documents
];

/** The specs beside the repository (`../shared`, as `.ci/run` lays it out); checked when present. */
export const SHARED = path.resolve(root, "../shared");

const SERVICES = ["identity", "content", "sites", "gateway"];
const FILE_EXTENSIONS = /\.(?:ts|mts|cts|tsx|mjs|cjs|js|json|md|sql|toml|png|svg|html|css|txt|ya?ml)$/;
const PLACEHOLDER = /[*<>{}]/;

interface Reference {
  file: string;
  line: number;
  name: string;
  /** `found`, `dead`, or the prefix of the LOCAL_ONLY entry that allows it. */
  resolution: string;
}

/**
 * A path-like name: segments of name characters (a `*`, `<placeholder>` or `{a,b}` counts as one) joined by
 * `/`, not glued to a word, a dot or a slash before it (so the tail of a URL or of `a.b/c` is not one).
 */
const NAME =
  /(?<![\w.@/~$*<>{}-])(?:\.\.?\/)*(?:[\w@.*<>-]|\{[\w.,-]*\})+(?:\/(?:[\w@.*<>-]|\{[\w.,-]*\})+)+\/?/g;

/**
 * A file named alone (`gate.ts`, `0012_content_version.sql`): a module, migration or doc of the repository
 * by its file name. Not `.json` or `.js` alone: those are mostly outputs (`wrangler.json`, `sign-in.js`).
 */
const LONE = /(?<![\w.@/~$*<>{}-])[\w-]+(?:\.[\w-]+)*\.(?:ts|mts|mjs|sql|md)(?![\w/-]|\.\w)/g;

/** The names on one line of prose or comment that claim to be repository paths or file names. */
function namesIn(text: string, topLevel: Set<string>): string[] {
  const names: string[] = [];
  for (const [name] of text.matchAll(LONE)) if (!name.endsWith(".d.ts")) names.push(name);
  for (const match of text.matchAll(NAME)) {
    const name = match[0].replace(/\.+$/, "");
    const first = name.split("/").find((s) => s !== ".." && s !== ".") ?? "";
    // `example.com/a.png`, `cdn.host/x.js`: a host, not a folder (dot folders of the repo are named as such).
    if (first.includes(".") && !first.startsWith(".") && !name.startsWith(".")) continue;
    // `<clone>/test-artifacts/…`, `{dir}/x.json`: rooted somewhere else; `node_modules/…`: a package's file.
    if (/^[<{]/.test(name) || name.startsWith("node_modules/")) continue;
    if (FILE_EXTENSIONS.test(name) || topLevel.has(first) || name.startsWith("../shared/")) names.push(name);
  }
  return names;
}

/** Each comment of a TypeScript or JavaScript module, with the line it starts on (strings are not comments). */
function codeComments(file: string, text: string): { line: number; text: string }[] {
  const kind = /\.(?:mjs|cjs|js)$/.test(file) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, kind);
  const seen = new Set<number>();
  const found: { line: number; text: string }[] = [];
  const add = (ranges: ts.CommentRange[] | undefined) => {
    for (const range of ranges ?? []) {
      if (seen.has(range.pos)) continue;
      seen.add(range.pos);
      found.push({
        line: source.getLineAndCharacterOfPosition(range.pos).line + 1,
        text: text.slice(range.pos, range.end),
      });
    }
  };
  const visit = (node: ts.Node) => {
    add(ts.getLeadingCommentRanges(text, node.pos));
    add(ts.getTrailingCommentRanges(text, node.end));
    for (const child of node.getChildren(source)) visit(child);
  };
  visit(source);
  return found;
}

/** The lines of a file that are prose to check: a comment's lines, every line of markdown. */
function proseLines(file: string, text: string): { line: number; text: string }[] {
  if (file.endsWith(".md")) return text.split("\n").map((t, i) => ({ line: i + 1, text: t }));
  if (/\.(?:ts|mts|cts|tsx|mjs|cjs|js)$/.test(file))
    return codeComments(file, text).flatMap((c) =>
      c.text.split("\n").map((t, i) => ({ line: c.line + i, text: t })),
    );
  const marker = file.endsWith(".sql") ? /--(.*)$/ : /(?:^|\s)#(.*)$/;
  return text.split("\n").flatMap((t, i) => {
    const comment = t.match(marker);
    return comment ? [{ line: i + 1, text: comment[1] ?? "" }] : [];
  });
}

function isScanned(file: string, text: string): boolean {
  if (GENERATED.some((g) => file.startsWith(g))) return false;
  if (/\.(?:md|ts|mts|cts|tsx|mjs|cjs|js|sql|toml)$/.test(file)) return true;
  return /^#!.*\b(?:ba)?sh\b/.test(text); // shell scripts (.ci/run)
}

function serviceOf(file: string): string | undefined {
  const own = file.match(/^(?:src|test|migrations|workers)\/([\w-]+)\//)?.[1];
  return own && SERVICES.includes(own) ? own : undefined;
}

/** Where a name may be written from: the root, the naming file's folder, a service's src/ and test/ folders. */
function basesOf(file: string): string[] {
  const own = serviceOf(file);
  const services = own ? [own] : SERVICES;
  const pkg = file.match(/^packages\/[\w-]+/)?.[0]; // a package names its files from its own root
  return [
    "",
    path.posix.dirname(file),
    ...(pkg ? [pkg] : []),
    ...services.flatMap((s) => [`src/${s}`, `test/${s}`]),
  ];
}

function globPattern(name: string): RegExp {
  const source = name
    .split(/(\*\*\/|\*|<[^>/]*>|\{[^}/]*\}|[.+?^$()|[\]\\])/)
    .map((part) => {
      if (part === "**/") return "(?:[^/]+/)*";
      if (part === "*") return "[^/]*";
      if (part.startsWith("<")) return "[^/]+";
      if (part.startsWith("{"))
        return part.includes(",")
          ? `(?:${part.slice(1, -1).split(",").map(escapeRegExp).join("|")})`
          : "[^/]+"; // `{id}`: a route parameter
      return escapeRegExp(part);
    })
    .join("");
  return new RegExp(`^${source}$`);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.+?^$()|[\]\\*{}]/g, "\\$&");
}

/** How a name resolves: to an entry of the repository, through a local-only allowance, or not at all. */
function resolution(file: string, name: string, entries: Set<string>, byName: Map<string, string[]>): string {
  if (!name.includes("/")) return loneResolution(file, name, byName);
  const bare = name.replace(/\/$/, "");
  if (bare === "../shared" || bare.startsWith("../shared/"))
    return !existsSync(SHARED) || existsSync(path.join(SHARED, bare.slice("../shared".length)))
      ? "found"
      : "dead";
  const candidates = basesOf(file).map((base) => path.posix.normalize(path.posix.join(base, bare)));
  if (PLACEHOLDER.test(bare)) {
    const patterns = candidates.map(globPattern);
    for (const entry of entries) if (patterns.some((p) => p.test(entry))) return "found";
  } else if (candidates.some((c) => entries.has(c))) return "found";
  // A test or a migration named by its stem (`test/content/read-path`, `migrations/sites/0004`).
  else if (!FILE_EXTENSIONS.test(bare)) {
    const stems = candidates.flatMap((c) => [`${c}.`, `${c}_`]);
    for (const entry of entries) if (stems.some((s) => entry.startsWith(s))) return "found";
  }
  const allowance = LOCAL_ONLY.find(
    (l) => bare.startsWith(l.prefix.replace(/\/$/, "")) && (l.when?.() ?? true),
  );
  return allowance ? allowance.prefix : "dead";
}

/**
 * A file named alone resolves to a file of that name in the naming file's service (src/<service>/,
 * test/<service>/), in the shared code (src/lib/, test/support/) or outside src/; named from outside a
 * service, anywhere. The specs' own files (ARCHITECTURE.md) are looked up in ../shared.
 */
function loneResolution(file: string, name: string, byName: Map<string, string[]>): string {
  if (existsSync(SHARED) ? existsSync(path.join(SHARED, name)) : /^[A-Z]+\.md$/.test(name)) return "found";
  const own = serviceOf(file);
  const places = byName.get(name) ?? [];
  const near = (place: string) =>
    !own ||
    place.startsWith(`src/${own}/`) ||
    place.startsWith(`test/${own}/`) ||
    place.startsWith("src/lib/") ||
    !place.startsWith("src/");
  return places.some(near) ? "found" : "dead";
}

export function references(files: string[], read: (file: string) => string): Reference[] {
  const entries = entriesOf(files);
  const byName = new Map<string, string[]>();
  for (const f of files) {
    const name = path.posix.basename(f);
    byName.set(name, [...(byName.get(name) ?? []), f]);
  }
  const topLevel = new Set(files.map((f) => f.split("/")[0] ?? f));
  const found: Reference[] = [];
  for (const file of files) {
    const text = read(file);
    if (!isScanned(file, text)) continue;
    for (const { line, text: prose } of proseLines(file, text))
      for (const name of namesIn(prose, topLevel))
        found.push({ file, line, name, resolution: resolution(file, name, entries, byName) });
  }
  return found;
}

export const dead = (refs: Reference[]) =>
  refs.filter((r) => r.resolution === "dead").map((r) => `${r.file}:${r.line}: ${r.name}`);
