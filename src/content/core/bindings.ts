/** The content worker's bindings (generated ContentEnv) plus the secrets it reads, and its Hono env. */
import type { Logger } from "../../lib/log";
import type { AnalyticsStore } from "../analytics/store-port";
import type { KeyContext } from "../keys/key-context";
import type { ImageFetcher } from "../media/ingest/ingest-image";
import type { WebhookSender } from "../webhooks/sender";
import type { CachePurger, SearchNotifier } from "./effects/outbound";

/**
 * The worker's env as the runtime hands it: the group databases by binding (DB_G000, …) and the directory,
 * never one content database. Only core/groups.ts turns it into an `Env`.
 */
export type WorkerEnv = ContentEnv & {
  API_KEY_PEPPER: string;
  CURSOR_SECRET: string;
  /** Seals webhook signing secrets at rest (`src/content/webhooks/secret-box.ts`). */
  WEBHOOK_SECRET_KEY: string;
  /** Tests only: the first retry delay of a failed webhook attempt (default 5 s; 0 retries at once). */
  WEBHOOK_RETRY_BASE_SECONDS?: string;
  /** "true" only in local development and tests: outbound effects are recorded instead of sent. */
  DEV_OUTBOX?: string;
};

/**
 * The env of code that runs on one site group: `DB` is that group's database, or a D1 session of it
 * (core/read-session.ts), chosen by core/groups.ts for the site at hand (or the group a cron visits).
 */
export type Env = WorkerEnv & { DB: D1Database };

/**
 * Outside-world adapters, handed to handlers through the Hono context (`c.get("services")`, built from
 * env per request by `contentServices`); RPC, queue and cron code build the same from env.
 */
export interface Services {
  searchNotifier: SearchNotifier;
  cachePurger: CachePurger;
  images: ImageFetcher;
  /** Page-view counts and the analytics reads (D1 today; swappable, see `analytics/store-port.ts`). */
  analytics: AnalyticsStore;
  /** Webhook deliveries and the registration check of their URLs (SSRF-safe). */
  webhooks: WebhookSender;
  /** The logger of the request, RPC call, batch or cron run the services were built for. */
  log: Logger;
}

export interface AppVariables {
  auth: KeyContext;
  services: Services;
  /** Headers added to whatever response this request ends with (CORS, RateLimit). */
  responseHeaders: Record<string, string>;
  /** The database itself (the primary), where `c.env.DB` is the request's read session (core/read-session.ts). */
  primaryDb: D1Database;
}

export type AppEnv = { Bindings: Env; Variables: AppVariables };
