import { WorkerEntrypoint } from "cloudflare:workers";
import { createServiceApp, registerProblemSchema, serveApiDocs } from "../lib/app";

type Env = IdentityEnv;
const app = createServiceApp<{ Bindings: Env }>();
registerProblemSchema(app);
app.get("/health", (c) => c.json({ status: "ok" }));
serveApiDocs(app, { title: "Identity", version: "0.1.0", description: "identity service" });

export default class IdentityService extends WorkerEntrypoint<Env> {
  override fetch(request: Request): Promise<Response> {
    return Promise.resolve(app.fetch(request, this.env, this.ctx));
  }
}
export { LoginChallenge, RefreshFamily, AccountGuard, RateLimiter, OrgOwnerGuard } from "./durable-objects";
