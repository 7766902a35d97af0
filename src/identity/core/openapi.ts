/**
 * What identity's routes leave unsaid in the OpenAPI document (issue 23 item 4): an operation without a
 * Bearer (`bearerAuth` spread into its route) is public (`security: []`), and each operation without a
 * tag gets its spec section's.
 */
import type { DocumentRules } from "../../lib/api-docs";

const SECTIONS: [RegExp, string][] = [
  [/^\/(health|ready|metrics)$/, "Probes"],
  [/^\/\.well-known\//, "Discovery"],
  [/^\/api\/v1\/auth\/__dev\//, "Development"],
  [/^\/api\/v1\/auth\/(signup|password|email\/verify)/, "Signup and password"],
  [/^\/api\/v1\/auth\/(login|magic-link|refresh|logout|sessions|passkey)/, "Login and sessions"],
  [/^\/api\/v1\/auth\/(mfa|step-up|disown)/, "Second factors"],
  [/^\/api\/v1\/auth\/emails/, "Account e-mail addresses"],
  [/^\/api\/v1\/auth\/orgs\/[^/]+\/members/, "Organization members"],
  [/^\/api\/v1\/auth\/orgs\/[^/]+\/invitations/, "Organization invitations"],
  [/^\/api\/v1\/auth\/orgs\/[^/]+\/events/, "Security events"],
  [/^\/api\/v1\/auth\/orgs/, "Organizations"],
  [/^\/api\/v1\/auth\/invitations/, "Organization invitations"],
  [/^\/api\/v1\/auth\/sites\/[^/]+\/invitations/, "Site invitations"],
  [/^\/api\/v1\/auth\/sites/, "Site members"],
  [/^\/api\/v1\/auth\/transfers/, "Transfers"],
  [/^\/api\/v1\/auth\/events/, "Security events"],
];

const ORDER = [
  "Signup and password",
  "Login and sessions",
  "Second factors",
  "Account",
  "Account e-mail addresses",
  "Organizations",
  "Organization members",
  "Organization invitations",
  "Site members",
  "Site invitations",
  "Transfers",
  "Security events",
  "Discovery",
  "Probes",
  "Development",
];

export const IDENTITY_DOCUMENT_RULES: DocumentRules = {
  security: () => [],
  tag: (path) => SECTIONS.find(([re]) => re.test(path))?.[1] ?? "Account",
  tags: ORDER.map((name) => ({ name })),
};
