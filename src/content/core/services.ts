/** The real adapters of content's outbound effects, built from env (see `Services`). */
import type { Logger } from "../../lib/log";
import { d1AnalyticsStore } from "../analytics/store";
import { safeImageFetcher } from "../media/ingest/ingest-image";
import { webhookSenderFor } from "../webhooks/sender";
import type { Env, Services } from "./bindings";
import { cachePurger, searchNotifier } from "./effects/outbound";

/**
 * The services of one site group (docs/decisions/site-groups.md): `env` is a group's env, so the analytics
 * store and the development outbox write to that group; a caller builds them per group (a request once
 * routed, an RPC call on its site's group, a queue batch's or a cron's pass over each group).
 */
export function contentServices(env: Env, log: Logger): Services {
  const timeout = Number(env.IMAGE_INGEST_TIMEOUT_MS);
  return {
    searchNotifier: searchNotifier(env),
    cachePurger: cachePurger(env),
    images: safeImageFetcher({
      dohUrl: env.DOH_URL,
      maxBytes: Number(env.INGEST_MAX_BYTES),
      ...(Number.isFinite(timeout) && timeout > 0 ? { timeoutMs: timeout } : {}),
    }),
    analytics: d1AnalyticsStore(env.DB),
    webhooks: webhookSenderFor(env),
    log,
  };
}
