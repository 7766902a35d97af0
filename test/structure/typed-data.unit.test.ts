/**
 * Typed data access (src/lib/sql.ts): what type a row has is said once, beside its SQL, and nowhere else.
 * - No cast of a query result: no `results … as …`, no `!.results`, no `results[0]!`, no `as unknown as`
 *   on a result. A batch goes through `batch(db, [...])`, which types each entry's rows.
 * - `db.batch(` only in src/lib/sql.ts (its one cast is the one allowed).
 * - SQL (`.prepare(`) only in store modules (a file whose name says `store`) and src/lib/sql.ts.
 * - A store module never reads `env.DB`: it takes its database handle as a parameter, so a caller can hand
 *   it another database (the content site groups of the capacity plan).
 * - Raw SQL shrinks: the count of `.prepare(` calls may only go down (drizzle's builder for what it can
 *   express); lower CEILING when you convert some.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readSource, relative, sourceFiles } from "./source-files";

const SQL_HELPER = "src/lib/sql.ts";

/** Raw statements left, counted over src/: may only go down. */
const PREPARE_CEILING = 59;

/** A D1 batch called directly, with or without a type argument; drizzle's typed `drizzle(db).batch(` passes. */
const RAW_BATCH = /(?<!drizzle\([^)]*\))\.batch\s*(<[^>]*>)?\(/;

const RESULT_CAST = [
  /\bresults\b[^;]*\)?\s+as\s+(?!const\b)[A-Za-z{(]/,
  /!\.results\b/,
  /\bresults\[\d+\]!/,
  /\bresults\b.*\bas unknown as\b/,
];

function resultCasts(text: string): number[] {
  return text.split("\n").flatMap((line, i) => (RESULT_CAST.some((re) => re.test(line)) ? [i + 1] : []));
}

function isStore(file: string): boolean {
  // `store.ts`, `me-store.ts`, `page-purges-store.ts`: not `restore.ts`.
  return /(^|[-.])store\b/.test(path.basename(file)) || file.split(path.sep).includes("store");
}

const files = sourceFiles().map((file) => ({ file, name: relative(file), text: readSource(file) }));

function linesMatching(text: string, re: RegExp): number[] {
  return text.split("\n").flatMap((line, i) => (re.test(line) ? [i + 1] : []));
}

/** Raw D1 batches: RAW_BATCH's lines, less those whose receiver is a name the file binds to `drizzle(…)`. */
function rawBatches(text: string): number[] {
  const drizzled = [...text.matchAll(/\b(?:const|let)\s+(\w+)\s*=\s*drizzle\(/g)].map((m) => m[1]!);
  const lines = text.split("\n");
  return linesMatching(text, RAW_BATCH).filter(
    (n) => !drizzled.some((name) => new RegExp(`\\b${name}\\.batch\\s*\\(`).test(lines[n - 1]!)),
  );
}

describe("typed data access", () => {
  it("no query result is cast or forced non-null", () => {
    const offenders = files
      .filter((f) => f.name !== SQL_HELPER)
      .flatMap((f) => resultCasts(f.text).map((line) => `${f.name}:${line}`));
    expect(offenders).toEqual([]);
  });

  it("the batch rule sees a raw batch, typed or not, and lets drizzle's typed one pass", () => {
    const sample =
      "await db.batch([a]);\nawait env.DB.batch<Row>(s);\nawait drizzle(db).batch([q]);\nconst d = drizzle(db);\nawait d.batch([q]);\nawait dd.batch([q]);";
    expect(rawBatches(sample)).toEqual([1, 2, 6]);
  });

  it("the cast rule sees what it forbids, and not a lookalike", () => {
    const sample = [
      "const a = list!.results as PostRow[];",
      "const b = (x?.results ?? []) as Row[];",
      "const c = rows.results[0]!.salt;",
      "const d = (r.results[0] as { at: string } | undefined)?.at;",
      "const e = results.map((r) => r.id) as const;",
      "const f = list.rows;",
    ].join("\n");
    expect(resultCasts(sample)).toEqual([1, 2, 3, 4]);
  });

  it("db.batch( is called only by the typed batch helper", () => {
    const offenders = files
      .filter((f) => f.name !== SQL_HELPER)
      .flatMap((f) => rawBatches(f.text).map((line) => `${f.name}:${line}`));
    expect(offenders).toEqual([]);
  });

  it("SQL is written in store modules only", () => {
    const offenders = files
      .filter((f) => f.name !== SQL_HELPER && !isStore(f.file))
      .flatMap((f) => linesMatching(f.text, /\.prepare\(/).map((line) => `${f.name}:${line}`));
    expect(offenders).toEqual([]);
  });

  it("a store module takes its database handle as a parameter, never env.DB", () => {
    const offenders = files
      .filter((f) => isStore(f.file))
      .flatMap((f) => linesMatching(f.text, /\benv\.DB\b/).map((line) => `${f.name}:${line}`));
    expect(offenders).toEqual([]);
  });

  it(`raw statements only go down (at most ${PREPARE_CEILING})`, () => {
    const count = files.reduce((n, f) => n + linesMatching(f.text, /\.prepare\(/).length, 0);
    expect(count).toBeLessThanOrEqual(PREPARE_CEILING);
  });
});
