/**
 * Types of `env` and `exports` from `cloudflare:workers` inside tests. Each test project runs a different
 * worker as the main one, so tests see the union of the four workers' bindings plus the test-only ones, and
 * `exports.default` as a plain Fetcher (tests that call RPC methods type them with the contracts).
 */
declare namespace Cloudflare {
  interface GlobalProps {
    mainModule: { default: ExportedHandler };
  }
  interface Env extends IdentityEnv, ContentEnv, SitesEnv, GatewayEnv {
    TEST_MIGRATIONS: string;
    TEST_CORPORA: string;
    TEST_SPECS: string;
    TEST_IDENTITY_DB: D1Database;
    /** Content's site groups and their directory (test/support/content-groups.ts). */
    TEST_CONTENT_G000: D1Database;
    TEST_CONTENT_G001: D1Database;
    TEST_CONTENT_DIRECTORY: D1Database;
    TEST_SITES_DB: D1Database;
  }
}
