import { describe, expect, it } from "vitest";
import { readSource, relative, sourceFiles } from "./source-files";

/**
 * Rows of hand-written SQL are typed from the drizzle tables (`Row<typeof table, …>` from src/lib/rows.ts,
 * or a named alias derived from a table), and computed columns say so (`Computed<{ … }>`): never an
 * object type written at the call, which nothing checks against the schema.
 */
const INLINE_ROW = /\.(first|all|raw)<\s*\{/;

function inlineRowCasts(text: string): number[] {
  return text.split("\n").flatMap((line, i) => (INLINE_ROW.test(line) ? [i + 1] : []));
}

describe("rows of raw SQL", () => {
  it("are typed from the drizzle tables or marked Computed, never by an inline object type", () => {
    const offenders = sourceFiles().flatMap((file) =>
      inlineRowCasts(readSource(file)).map((line) => `${relative(file)}:${line}`),
    );
    expect(offenders).toEqual([]);
  });

  it("the rule sees an inline cast (it guards something real)", () => {
    expect(
      inlineRowCasts('await stmt.first<{ n: number }>();\nawait stmt.all<Row<typeof t, "id">>();'),
    ).toEqual([1]);
  });
});
