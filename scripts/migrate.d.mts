import type { Miniflare } from "miniflare";

export declare function applyMigrations(
  db: Awaited<ReturnType<Miniflare["getD1Database"]>>,
  service: string,
  statementsOf?: (file: string) => Promise<string[]> | string[],
): Promise<string[]>;
export declare function migrationFiles(service: string): string[];
export declare function migrationStatements(service: string, file: string): Promise<string[]>;
