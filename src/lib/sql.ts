/**
 * Typed raw SQL: the one place a D1 result is given its row type. The query builder (drizzle) types what it
 * can express (an id list bound as one parameter included: `inJsonEach`); the SQL it cannot (FTS5, keyset
 * listings, recursive CTEs, `INSERT … SELECT` guards, writes chained on `changes()`) is written as a
 * `Query<R>`, whose row type `R` is declared once, beside the SQL, from the drizzle tables
 * (`Row<typeof posts, …>`, src/lib/rows.ts) or marked `Computed`.
 *
 * `batch` runs statements in one D1 batch (one transaction, one round trip) and hands back each
 * statement's rows with its declared type, so no caller casts a result or forces one non-null:
 *
 *   const [list, next] = await batch(db, [
 *     query<PostRow>(db, `SELECT … FROM posts …`, siteId),
 *     query<Computed<{ at: string | null }>>(db, `SELECT MIN(published_at) AS at …`, siteId),
 *   ]);
 *   list.rows; // PostRow[]
 *
 * A plain `D1PreparedStatement` (a write a store built) or a write built with drizzle's query builder
 * (`drizzle(db).update(…)…`, no `RETURNING`) may sit in a batch too: it reads no rows (`rows: never[]`),
 * and its `changes` say what it wrote. A batch whose entries are all builder queries is drizzle's own typed
 * `drizzle(db).batch([...])`; this one is for batches that mix in raw SQL.
 * test/structure/typed-data.unit.test.ts holds the rules: no cast of a query result anywhere, `db.batch(`
 * only here, SQL only in store modules.
 */

import { type SQL, type SQLWrapper, sql } from "drizzle-orm";

/** A raw statement with the type of the rows it reads. */
export interface Query<R> {
  /** Tells a Query from a bare statement (a D1PreparedStatement has a `statement` field of its own). */
  readonly typed: true;
  readonly statement: D1PreparedStatement;
  /** Never set: carries `R` for the type checker only. */
  readonly row?: R;
}

/** `sql` bound to `params`, reading rows of type `R`: the type is declared here, beside the SQL. */
export function query<R>(db: D1Database, sql: string, ...params: unknown[]): Query<R> {
  const prepared = db.prepare(sql);
  return { typed: true, statement: params.length > 0 ? prepared.bind(...params) : prepared };
}

/** An already prepared and bound statement (a store's builder) given the type of its rows. */
export function typed<R>(statement: D1PreparedStatement): Query<R> {
  return { typed: true, statement };
}

/** What one statement of a batch gave: its rows and the rows it changed. */
export interface Outcome<R> {
  rows: R[];
  changes: number;
}

/**
 * A write built with drizzle's query builder: an insert, update or delete without `RETURNING` (a select, or
 * a write that returns rows, has no `returning: undefined` and is refused by the type checker).
 */
interface BuiltWrite {
  readonly _: { readonly returning: undefined };
  toSQL(): { sql: string; params: unknown[] };
}

/** What a batch may hold: a typed raw query, a bare statement, or a builder's write. */
export type BatchEntry = Query<unknown> | D1PreparedStatement | BuiltWrite;
type Entry = BatchEntry;
type OutcomeOf<E> = E extends Query<infer R> ? Outcome<R> : Outcome<never>;
export type Outcomes<T extends readonly Entry[]> = { -readonly [K in keyof T]: OutcomeOf<T[K]> };

function statementOf(db: D1Database, entry: Entry): D1PreparedStatement {
  if ("typed" in entry) return entry.statement;
  if ("toSQL" in entry) {
    // The builder's SQL and its parameters already mapped to driver values: what drizzle itself binds.
    const built = entry.toSQL();
    return query<never>(db, built.sql, ...built.params).statement;
  }
  return entry;
}

/**
 * A write built with drizzle's query builder as a D1 statement, for a store function whose callers put the
 * statement in a batch of their own (`batch(db, [...])`): the builder's SQL and parameters, unchanged.
 */
export function prepared(db: D1Database, write: BuiltWrite): D1PreparedStatement {
  return statementOf(db, write);
}

/**
 * Runs `entries` as one D1 batch (a transaction: all or nothing) and returns one outcome per entry, in
 * order, each typed by its entry.
 */
export async function batch<const T extends readonly Entry[]>(
  db: D1Database,
  entries: T,
): Promise<Outcomes<T>> {
  const results = await db.batch(entries.map((entry) => statementOf(db, entry)));
  const outcomes = results.map((r) => ({ rows: r.results ?? [], changes: r.meta?.changes ?? 0 }));
  // The one cast of a query result: D1 types a batch's results `unknown`; each entry declared its own.
  return outcomes as Outcomes<T>;
}

/** Every row `q` reads. */
export async function all<R>(q: Query<R>): Promise<R[]> {
  return (await q.statement.all<R>()).results;
}

/** The first row `q` reads, or null. */
export function first<R>(q: Query<R>): Promise<R | null> {
  return q.statement.first<R>();
}

/**
 * `column IN (values)` with the values bound as ONE parameter (a JSON array read by `json_each`), for the
 * query builder: D1 allows 100 bound parameters per statement, so a list of ids never binds one each.
 */
export function inJsonEach(column: SQLWrapper, values: readonly unknown[]): SQL {
  return sql`${column} IN (SELECT value FROM json_each(${JSON.stringify(values)}))`;
}

/** `text`'s `?` placeholders numbered in order (?1, ?2, …), as `fragment` binds them. */
export function numbered(text: string): string {
  let n = 0;
  return text.replace(/\?/g, () => `?${++n}`);
}

/**
 * A raw SQL fragment for the query builder: `text` (a store's SQL, written once for its raw statements
 * too) with its positional parameters (`?1`, `?2`…) bound to `params`, so one form of a rule serves both.
 */
export function fragment(text: string, ...params: unknown[]): SQL {
  const pieces = text.split(/\?(\d+)/);
  return sql.join(
    pieces.map((piece, i) => (i % 2 === 0 ? sql.raw(piece) : sql`${params[Number(piece) - 1]}`)),
  );
}

/**
 * The database's own message of a failed query. drizzle wraps a statement it ran in an error that names
 * the query and its parameters ("Failed query: …") and keeps the driver's error as its `cause`; a check
 * for a constraint ("UNIQUE constraint failed: …") reads the driver's message, and a log never carries
 * the parameters.
 */
export function driverMessage(err: unknown): string {
  const cause = err instanceof Error && err.cause instanceof Error ? err.cause : err;
  return cause instanceof Error ? cause.message : String(cause);
}
