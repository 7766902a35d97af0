import { createServiceApp, registerProblemSchema, serveApiDocs } from "../lib/app";
import { registerMeRoute } from "./account/me";
import { RangeApiBreachChecker } from "./breach";
import type { AppEnv } from "./context";
import { createMailer, createSmsSender } from "./messaging";
import { registerHostedPages } from "./pages";
import { usePasswordCost } from "./password";
import { registerEmailRoutes } from "./routes/emails";
import { registerEventRoutes } from "./routes/events";
import { registerFactorRoutes } from "./routes/factors";
import { registerInvitationRoutes } from "./routes/invitations";
import { registerLoginRoutes } from "./routes/login";
import { registerOrgMemberRoutes } from "./routes/org-members";
import { registerOrgRoutes } from "./routes/orgs";
import { registerPasskeyLoginRoutes } from "./routes/passkey-login";
import { registerPasskeyRoutes } from "./routes/passkeys";
import { registerPhoneRoutes } from "./routes/phone";
import { registerProbeRoutes } from "./routes/probes";
import { registerSessionRoutes } from "./routes/sessions";
import { registerSignupRoutes } from "./routes/signup";
import { registerSiteMemberRoutes } from "./routes/site-members";
import { registerTotpQrRoute } from "./routes/totp-qr";
import { registerTransferRoutes } from "./routes/transfers";

/** The identity HTTP app. Exported apart from the entrypoint so tests can run it with an altered env. */
export const app = createServiceApp<AppEnv>("identity");
registerProblemSchema(app);
app.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
  type: "http",
  scheme: "bearer",
  bearerFormat: "JWT",
});

app.use("*", async (c, next) => {
  usePasswordCost(c.env.TEST_SCRYPT_COST);
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
registerPasskeyLoginRoutes(app);
registerSessionRoutes(app);
registerFactorRoutes(app);
registerEmailRoutes(app);
registerPhoneRoutes(app);
registerPasskeyRoutes(app);
registerTotpQrRoute(app);
registerMeRoute(app);
registerOrgRoutes(app);
registerOrgMemberRoutes(app);
registerInvitationRoutes(app);
registerSiteMemberRoutes(app);
registerTransferRoutes(app);
registerEventRoutes(app);
registerHostedPages(app);

serveApiDocs(app, {
  title: "Identity",
  version: "0.1.0",
  description: "Identity service: accounts, logins, sessions, second factors, organizations.",
});
