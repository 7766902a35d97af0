import { WorkerEntrypoint } from "cloudflare:workers";
import { createServiceApp, registerProblemSchema, serveApiDocs } from "../lib/app";

type Env = SitesEnv;
const app = createServiceApp<{ Bindings: Env }>();
registerProblemSchema(app);
app.get("/health", (c) => c.json({ status: "ok" }));
serveApiDocs(app, { title: "Sites", version: "0.1.0", description: "sites service" });

export default class SitesService extends WorkerEntrypoint<Env> {
  override fetch(request: Request): Promise<Response> {
    return Promise.resolve(app.fetch(request, this.env, this.ctx));
  }
}
