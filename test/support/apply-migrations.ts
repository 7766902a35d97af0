import { applyD1Migrations, type D1Migration } from "cloudflare:test";
import { env } from "cloudflare:workers";

interface TestBindings {
  TEST_MIGRATIONS: string;
  TEST_IDENTITY_DB: D1Database;
  TEST_CONTENT_G000: D1Database;
  TEST_CONTENT_G001: D1Database;
  TEST_CONTENT_DIRECTORY: D1Database;
  TEST_SITES_DB: D1Database;
}

// Setup files run once per test file, and the files of a project share one runtime (vitest.config.ts,
// `isolate: false`): the databases are migrated by the first file of each runtime (the flag lives on
// globalThis, which outlives the file). applyD1Migrations also skips what is applied already.
const holder = globalThis as { __testMigrated?: Promise<void> };
holder.__testMigrated ??= (async () => {
  const testEnv = env as unknown as TestBindings;
  const all = JSON.parse(testEnv.TEST_MIGRATIONS) as Record<
    "identity" | "content" | "content-directory" | "sites",
    D1Migration[]
  >;
  await applyD1Migrations(testEnv.TEST_IDENTITY_DB, all.identity);
  // Content: every site group (the same migrations) and the directory (docs/decisions/site-groups.md).
  await applyD1Migrations(testEnv.TEST_CONTENT_G000, all.content);
  await applyD1Migrations(testEnv.TEST_CONTENT_G001, all.content);
  await applyD1Migrations(testEnv.TEST_CONTENT_DIRECTORY, all["content-directory"]);
  await applyD1Migrations(testEnv.TEST_SITES_DB, all.sites);
})();
await holder.__testMigrated;
