import { WorkerEntrypoint } from "cloudflare:workers";
import { createServiceApp, registerProblemSchema, serveApiDocs } from "../lib/app";

type Env = ContentEnv;
const app = createServiceApp<{ Bindings: Env }>();
registerProblemSchema(app);
app.get("/health", (c) => c.json({ status: "ok" }));
serveApiDocs(app, { title: "Content", version: "0.1.0", description: "content service" });

export default class ContentService extends WorkerEntrypoint<Env> {
  override fetch(request: Request): Promise<Response> {
    return Promise.resolve(app.fetch(request, this.env, this.ctx));
  }
}
export { ApiKeyGate } from "./api-key-gate";
