import type { Miniflare } from "miniflare";

type Row = Record<string, unknown>;
/** Where a dump reads rows from: a local D1 binding or the D1 HTTP API. */
export interface Source {
  query(sql: string): Promise<Row[]>;
}
interface SchemaEntry {
  type: string;
  name: string;
  tbl_name: string;
  sql: string;
}
export declare const DATABASES: string[];
export declare const HEADER: string;
export declare function literal(value: unknown): string;
export declare function readSchema(source: Source): Promise<{
  tables: SchemaEntry[];
  virtual: SchemaEntry[];
  fts: string[];
  indexes: SchemaEntry[];
  triggers: SchemaEntry[];
  views: SchemaEntry[];
}>;
export declare function dumpDatabase(
  source: Source,
  options?: { database?: string; now?: Date },
): Promise<{ sql: string; counts: Record<string, number>; fts: string[] }>;
export declare function d1Source(db: {
  prepare(sql: string): { all(): Promise<{ results: Row[] }> };
}): Source;
export declare function d1HttpSource(options: {
  accountId: string;
  databaseId: string;
  apiToken: string;
  fetchImpl?: (url: string, init?: RequestInit) => Promise<Response>;
  base?: string;
}): Source;
export declare function stamp(now?: Date): string;
export declare function localDatabases(
  persist: string,
): Promise<{ mf: Miniflare; db(name: string): Promise<D1Database> }>;
export declare const defaultStore: () => string;
export declare function remoteIds(
  env?: Record<string, string | undefined>,
  resourcesFile?: string,
): Record<string, string>;
