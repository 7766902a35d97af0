import type { Miniflare } from "miniflare";

export declare function applyMigrations(
  db: Awaited<ReturnType<Miniflare["getD1Database"]>>,
  service: string,
): Promise<string[]>;
