/**
 * Typed raw SQL: the one place a D1 result is given its row type. The query builder (drizzle) types what it
 * can express; the SQL it cannot (FTS5, `json_each`, keyset listings, recursive CTEs, `INSERT … SELECT`
 * guards, conditional batches) is written as a `Query<R>`, whose row type `R` is declared once, beside the
 * SQL, from the drizzle tables (`Row<typeof posts, …>`, src/lib/rows.ts) or marked `Computed`.
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
 * A plain `D1PreparedStatement` (a write a store built) may sit in a batch too: it reads no rows
 * (`rows: never[]`), and its `changes` say what it wrote. test/structure/typed-data.unit.test.ts holds
 * the rules: no cast of a query result anywhere, `db.batch(` only here, SQL only in store modules.
 */

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

type Entry = Query<unknown> | D1PreparedStatement;
type OutcomeOf<E> = E extends Query<infer R> ? Outcome<R> : Outcome<never>;
export type Outcomes<T extends readonly Entry[]> = { -readonly [K in keyof T]: OutcomeOf<T[K]> };

function statementOf(entry: Entry): D1PreparedStatement {
  return "typed" in entry ? entry.statement : entry;
}

/**
 * Runs `entries` as one D1 batch (a transaction: all or nothing) and returns one outcome per entry, in
 * order, each typed by its entry.
 */
export async function batch<const T extends readonly Entry[]>(
  db: D1Database,
  entries: T,
): Promise<Outcomes<T>> {
  const results = await db.batch(entries.map(statementOf));
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

/** Runs a write; the number of rows it changed. */
export async function run(entry: Entry): Promise<number> {
  return (await statementOf(entry).run()).meta.changes ?? 0;
}
