/** The sites worker's cron triggers (workers/sites/wrangler.toml `[triggers] crons`), by schedule. */
import { errorFields, runLogger } from "../../lib/log";
import { HEALTH_CRON, sweepHealth } from "../health/health";
import { sitesServices } from "./services";

/** Every 5 minutes: page purges that failed before and are due again. */
export const RETRY_CRON = "*/5 * * * *";

export async function runCron(env: SitesEnv, cron: string): Promise<void> {
  const log = runLogger("sites", cron);
  const services = sitesServices(env, log);
  try {
    if (cron === RETRY_CRON) {
      const tried = await services.pageCache.retryDue();
      log.info("page_purges_retried", { tried });
    } else if (cron === HEALTH_CRON) {
      const sites = await sweepHealth(env, services);
      log.info("health_swept", { sites });
    } else {
      log.warn("unknown_cron", { cron });
    }
  } catch (err) {
    log.error("cron_failed", { cron, ...errorFields(err) });
    throw err;
  }
}
