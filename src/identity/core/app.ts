import { createServiceApp, registerProblemSchema, serveApiDocs } from "../../lib/app";
import { registerMeRoute } from "../account/me";
import { registerAccountRoutes } from "../account/routes";
import { registerEmailRoutes } from "../emails/routes";
import { registerEventRoutes } from "../events/routes";
import { registerPasskeyRoutes } from "../factors/passkeys-routes";
import { registerPhoneRoutes } from "../factors/phone-routes";
import { registerFactorRoutes } from "../factors/routes";
import { registerTotpQrRoute } from "../factors/totp-qr-routes";
import { registerInvitationRoutes } from "../invitations/routes";
import { registerLoginRoutes } from "../login/routes";
import { registerSessionRoutes } from "../login/sessions-routes";
import { registerOrgMemberRoutes } from "../members/org-members-routes";
import { registerOrgRoutes } from "../members/orgs-routes";
import { registerSiteMemberRoutes } from "../members/site-members-routes";
import { createMailer, createSmsSender } from "../messaging/messaging";
import { registerConsentRoutes } from "../oauth/consent-routes";
import { registerGrantRoutes } from "../oauth/grants-routes";
import { registerMetadataRoutes } from "../oauth/metadata-routes";
import { registerRegistrationRoutes } from "../oauth/register-routes";
import { registerRevokeRoutes } from "../oauth/revoke-routes";
import { registerTokenRoutes } from "../oauth/token-routes";
import { registerHostedPages } from "../pages";
import { registerPasskeyLoginRoutes } from "../passkey-login/routes";
import { registerProbeRoutes } from "../probes/routes";
import { BREACH_CHECK_TIMEOUT_MS, RangeApiBreachChecker } from "../signup/breach";
import { usePasswordCost } from "../signup/password";
import { registerSignupRoutes } from "../signup/routes";
import { registerSsoRoutes } from "../sso/routes";
import { registerTransferRoutes } from "../transfers/routes";
import { type AppEnv, requestFacts } from "./context";
import { outboundDeadline } from "./deadlines";
import { IDENTITY_DOCUMENT_RULES } from "./openapi";

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
    breach: new RangeApiBreachChecker(
      c.env.BREACH_CHECK_URL,
      outboundDeadline(c.env, BREACH_CHECK_TIMEOUT_MS),
    ),
    log: c.get("log"),
    // Lazy: a request run without an execution context (app.request in tests) fails only if it uses one.
    waitUntil: (work) => c.executionCtx.waitUntil(work),
    request: requestFacts(c),
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
registerSsoRoutes(app);
registerAccountRoutes(app);
registerTokenRoutes(app);
registerRevokeRoutes(app);
registerGrantRoutes(app);
registerMetadataRoutes(app);
registerRegistrationRoutes(app);
registerConsentRoutes(app);
registerHostedPages(app);

serveApiDocs(
  app,
  {
    title: "Identity",
    version: "0.1.0",
    description: "Identity service: accounts, logins, sessions, second factors, organizations.",
  },
  IDENTITY_DOCUMENT_RULES,
);
