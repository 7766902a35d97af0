import type { Table } from "drizzle-orm";

/**
 * The type of a row a raw SQL statement reads, derived from the drizzle table it reads
 * (`schema/<service>.ts`): `.first<Row<typeof users, "id" | "status">>()`. Hand-written SQL stays where the
 * query builder cannot say it (FTS5, `json_each`, keyset listings, conditional batches, `RETURNING` in a
 * compare-and-set); its rows are typed from the tables, never by hand, so a column's type is written once
 * and a misspelt column fails the typecheck.
 */
export type Row<T extends Table, K extends keyof T["$inferSelect"] = keyof T["$inferSelect"]> = Pick<
  T["$inferSelect"],
  K
>;

/**
 * Columns a statement computes (`COUNT(*) AS n`, `EXISTS (…) AS has`, `1 AS ok`, an alias): no table has
 * them, so they are spelt out, and named `Computed` so a reader sees they are not columns.
 */
export type Computed<T extends Record<string, unknown>> = T;

/** A row whose nullable columns `K` the statement's WHERE clause proves present (`… IS NOT NULL`). */
export type Present<T, K extends keyof T> = Omit<T, K> & { [P in K]: NonNullable<T[P]> };
