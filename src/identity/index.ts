import { WorkerEntrypoint } from "cloudflare:workers";
import type { EdgeContext, IdentityRpc } from "../lib/rpc";
import { app } from "./app";
import { edgeContextFor } from "./store/edge-context";
import { cleanupExpired } from "./store/maintenance";
import type { Env } from "./worker-env";

export default class IdentityService extends WorkerEntrypoint<Env> implements IdentityRpc {
  override fetch(request: Request): Promise<Response> {
    return Promise.resolve(app.fetch(request, this.env, this.ctx));
  }

  override async scheduled(): Promise<void> {
    await cleanupExpired(this.env.DB);
  }

  /** What the gateway attaches to a verified access token; null when the user no longer exists. */
  async edgeContext(input: { user_id: string; session_id: string }): Promise<EdgeContext | null> {
    if (typeof input?.user_id !== "string" || typeof input?.session_id !== "string") return null;
    return edgeContextFor(this.env.DB, input.user_id, input.session_id);
  }
}

export { AccountGuard, LoginChallenge, RateLimiter, RefreshFamily } from "./durable-objects";
