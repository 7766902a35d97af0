import { env } from "cloudflare:workers";
import { is } from "drizzle-orm";
import { getTableConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
import * as contentSchema from "../../schema/content";
import * as contentDirectorySchema from "../../schema/content-directory";
import * as identitySchema from "../../schema/identity";
import * as sitesSchema from "../../schema/sites";

/**
 * The drizzle schema is the source of the row types; the migrations are what D1 runs. Both must describe
 * the same tables, column by column, or a row type lies about what a query returns (and a drizzle insert
 * would send a column the table lacks, or NULL where SQL has a default).
 */

interface ColumnShape {
  type: string;
  notNull: boolean;
  default: string | null;
  /** Position in the primary key (1-based), 0 when not part of it. */
  primaryKey: number;
}

interface TableInfoRow {
  name: string;
  type: string;
  notnull: number;
  dflt_value: string | null;
  pk: number;
}

/**
 * Every database of every service: content's site groups each (the same migrations, docs/decisions/
 * site-groups.md) and its directory, which has a schema and migrations of its own.
 */
const services = {
  identity: { db: () => env.TEST_IDENTITY_DB, schema: identitySchema },
  "content group g000": { db: () => env.TEST_CONTENT_G000, schema: contentSchema },
  "content group g001": { db: () => env.TEST_CONTENT_G001, schema: contentSchema },
  "content directory": { db: () => env.TEST_CONTENT_DIRECTORY, schema: contentDirectorySchema },
  sites: { db: () => env.TEST_SITES_DB, schema: sitesSchema },
};

/** A drizzle default as SQLite's table_info prints the DEFAULT clause. */
function sqlLiteral(value: unknown): string {
  if (typeof value === "string") return `'${value.replaceAll("'", "''")}'`;
  if (typeof value === "number") return String(value);
  throw new Error(`default ${String(value)} has no literal form here`);
}

function schemaTables(schema: Record<string, unknown>): SQLiteTable[] {
  return Object.values(schema).filter((value): value is SQLiteTable => is(value, SQLiteTable));
}

function schemaColumns(table: SQLiteTable): Record<string, ColumnShape> {
  const config = getTableConfig(table);
  const compositeKey = config.primaryKeys[0]?.columns.map((c) => c.name) ?? [];
  return Object.fromEntries(
    config.columns.map((c) => [
      c.name,
      {
        type: c.getSQLType().toUpperCase(),
        notNull: c.notNull,
        default: c.hasDefault ? sqlLiteral(c.default) : null,
        primaryKey: c.primary ? 1 : compositeKey.indexOf(c.name) + 1,
      },
    ]),
  );
}

/** Ordinary tables after every migration: not FTS (virtual, shadow), SQLite's, D1's or the migration log. */
async function migratedTables(db: D1Database): Promise<string[]> {
  const { results } = await db
    .prepare("PRAGMA table_list")
    .all<{ schema: string; name: string; type: string }>();
  return results
    .filter((t) => t.schema === "main" && t.type === "table")
    .map((t) => t.name)
    .filter((name) => !/^(sqlite_|_cf_)/.test(name) && name !== "d1_migrations")
    .sort();
}

async function migratedColumns(db: D1Database, table: string): Promise<Record<string, ColumnShape>> {
  const { results } = await db.prepare(`PRAGMA table_info(${table})`).all<TableInfoRow>();
  return Object.fromEntries(
    results.map((c) => [
      c.name,
      {
        type: c.type.toUpperCase(),
        // SQLite reports a non-INTEGER PRIMARY KEY as nullable (a legacy quirk); drizzle types it non-null.
        notNull: c.notnull === 1 || c.pk > 0,
        default: c.dflt_value,
        primaryKey: c.pk,
      },
    ]),
  );
}

for (const [service, { db, schema }] of Object.entries(services)) {
  describe(`${service} database`, () => {
    it(`has exactly the tables of the drizzle schema after applying the ${service} migrations`, async () => {
      const declared = schemaTables(schema)
        .map((t) => getTableConfig(t).name)
        .sort();
      expect(await migratedTables(db())).toEqual(declared);
    });

    it(`every column of the ${service} migrations is in the drizzle schema, same type, nullability, default and primary key, and no other`, async () => {
      for (const table of schemaTables(schema)) {
        const name = getTableConfig(table).name;
        expect({ table: name, columns: await migratedColumns(db(), name) }).toEqual({
          table: name,
          columns: schemaColumns(table),
        });
      }
    });
  });
}
