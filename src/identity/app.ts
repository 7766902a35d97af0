import { createServiceApp, registerProblemSchema, serveApiDocs } from "../lib/app";
import { RangeApiBreachChecker } from "./breach";
import type { AppEnv } from "./context";
import { createMailer, createSmsSender } from "./messaging";
import { registerFactorRoutes } from "./routes/factors";
import { registerLoginRoutes } from "./routes/login";
import { registerOrgRoutes } from "./routes/orgs";
import { registerProbeRoutes } from "./routes/probes";
import { registerSessionRoutes } from "./routes/sessions";
import { registerSignupRoutes } from "./routes/signup";

/** The identity HTTP app. Exported apart from the entrypoint so tests can run it with an altered env. */
export const app = createServiceApp<AppEnv>();
registerProblemSchema(app);
app.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
  type: "http",
  scheme: "bearer",
  bearerFormat: "JWT",
});

app.use("*", async (c, next) => {
  c.set("services", {
    mailer: createMailer(c.env),
    sms: createSmsSender(c.env),
    breach: new RangeApiBreachChecker(c.env.BREACH_CHECK_URL),
  });
  await next();
});

registerProbeRoutes(app);
registerSignupRoutes(app);
registerLoginRoutes(app);
registerSessionRoutes(app);
registerFactorRoutes(app);
registerOrgRoutes(app);

serveApiDocs(app, {
  title: "Identity",
  version: "0.1.0",
  description: "Identity service: accounts, logins, sessions, second factors, organizations.",
});
