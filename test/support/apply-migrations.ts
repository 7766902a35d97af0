import { applyD1Migrations, type D1Migration } from "cloudflare:test";
import { env } from "cloudflare:workers";

interface TestBindings {
  TEST_MIGRATIONS: string;
  TEST_IDENTITY_DB: D1Database;
  TEST_CONTENT_DB: D1Database;
  TEST_SITES_DB: D1Database;
}

// Setup files may run more than once; applyD1Migrations only applies what is not applied yet.
const testEnv = env as unknown as TestBindings;
const all = JSON.parse(testEnv.TEST_MIGRATIONS) as Record<"identity" | "content" | "sites", D1Migration[]>;
await applyD1Migrations(testEnv.TEST_IDENTITY_DB, all.identity);
await applyD1Migrations(testEnv.TEST_CONTENT_DB, all.content);
await applyD1Migrations(testEnv.TEST_SITES_DB, all.sites);
