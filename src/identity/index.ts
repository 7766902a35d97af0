import { WorkerEntrypoint } from "cloudflare:workers";
import { devCron } from "../lib/dev-cron";
import { errorFields, runLogger } from "../lib/log";
import { instrumentEntrypoint } from "../lib/metrics";
import type { AgentAccess, EdgeContext, IdentityRpc, SiteGrant, SiteGrantQuery } from "../lib/rpc";
import { eraseDueAccounts } from "./account/erasure";
import { app } from "./core/app";
import { edgeContextFor } from "./core/edge-context";
import { cleanupExpired } from "./core/maintenance";
import { siteGrantOf } from "./core/site-grant";
import type { Env } from "./core/worker-env";
import { deliverGrantEndings } from "./members/grant-endings";
import { createMailer } from "./messaging/messaging";
import { agentAccessOf } from "./oauth/agent-access";
import { recordBreakGlass } from "./sso/enforcement";

export default class IdentityService extends WorkerEntrypoint<Env> implements IdentityRpc {
  override fetch(request: Request): Promise<Response> {
    return (
      devCron(request, this.env, (c) => this.scheduled(c)) ??
      Promise.resolve(app.fetch(request, this.env, this.ctx))
    );
  }

  override async scheduled(controller?: ScheduledController): Promise<void> {
    const log = runLogger("identity", controller?.cron);
    try {
      await cleanupExpired(this.env.DB);
      // The erasure's clock is the cron's scheduled time (tests inject one past the grace period).
      const erasure = await eraseDueAccounts(this.env, controller?.scheduledTime ?? Date.now(), log);
      if (erasure.erased + erasure.notified > 0) log.info("accounts_erased", erasure);
      // Keys and webhooks of people whose grant ended and that no route delivered (docs/decisions/grant-endings.md).
      const endings = await deliverGrantEndings({ env: this.env, mailer: createMailer(this.env), log });
      if (endings > 0) log.info("grant_endings_delivered", { endings });
    } catch (err) {
      log.error("cleanup_failed", errorFields(err));
      throw err;
    }
    log.info("cleanup_done");
  }

  /** What the gateway attaches to a verified access token; null when the user no longer exists. */
  async edgeContext(input: { user_id: string; session_id: string }): Promise<EdgeContext | null> {
    if (typeof input?.user_id !== "string" || typeof input?.session_id !== "string") return null;
    return edgeContextFor(this.env.DB, input.user_id, input.session_id, (facts, orgIds) =>
      this.ctx.waitUntil(recordBreakGlass(this.env, facts, input.user_id, orgIds)),
    );
  }

  /** A person's grant on one site, uncached: what content's dashboard writes decide by (issue 34). */
  async siteGrant(input: SiteGrantQuery): Promise<SiteGrant | null> {
    return siteGrantOf(this.env.DB, input);
  }

  /** An MCP agent's grant and the person's memberships now, uncached (issue 37). */
  async agentAccess(input: { grant_id: string }): Promise<AgentAccess | null> {
    return agentAccessOf(this.env.DB, input);
  }
}

// RPC methods, queue batches and cron runs in a trace, measured (src/lib/metrics.ts).
instrumentEntrypoint(IdentityService, "identity");

export { AccountGuard, LoginChallenge, RateLimiter, RefreshFamily } from "./core/durable-objects";
