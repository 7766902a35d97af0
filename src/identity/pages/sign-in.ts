/**
 * Sign-up, e-mail confirmation, phased sign-in (password, then TOTP, e-mail code, passkey or recovery
 * code; trust this device), magic link and password reset pages; and the pages behind two links identity
 * mails: the owner's "remove this address" notice and an invitation.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../core/context";
import { devOutboxEnabled } from "../messaging/messaging";
import { ssoBody } from "../sso/page";
import { renderPage } from "./layout";
import { safeNextPath } from "./sign-in-next";
import {
  confirmBody,
  disownBody,
  invitationBody,
  magicLinkBody,
  passwordResetBody,
  signInBody,
  signUpBody,
} from "./sign-in-views";

/** The query values a page renders (escaped by the template), bounded so a page never echoes a novel. */
function query(c: Context, name: string): string {
  return (c.req.query(name) ?? "").slice(0, 320);
}

const next = (c: Context) => safeNextPath(c.req.query("next"));
const fromLink = (c: Context) => query(c, "email") !== "" && query(c, "code") !== "";

export function registerSignInPages(app: OpenAPIHono<AppEnv>) {
  app.get("/auth/sign-in", (c) =>
    renderPage(c, {
      title: "Sign in",
      script: "sign-in.js",
      body: signInBody({ next: next(c), email: query(c, "email"), reset: query(c, "reset") === "1" }),
    }),
  );
  app.get("/auth/sso", (c) => renderPage(c, { title: "Single sign-on", script: "sso.js", body: ssoBody() }));
  app.get("/auth/sign-up", (c) =>
    renderPage(c, { title: "Create an account", script: "sign-up.js", body: signUpBody({ next: next(c) }) }),
  );
  app.get("/auth/confirm", (c) =>
    renderPage(c, {
      title: "Confirm your e-mail",
      script: "confirm.js",
      body: confirmBody({ next: next(c), email: query(c, "email"), devOutbox: devOutboxEnabled(c.env) }),
    }),
  );
  app.get("/auth/magic-link", (c) =>
    renderPage(c, {
      title: "Sign in with an e-mailed link",
      script: "magic-link.js",
      body: magicLinkBody({ next: next(c), email: query(c, "email"), fromLink: fromLink(c) }),
    }),
  );
  app.get("/auth/password/reset", (c) =>
    renderPage(c, {
      title: "Reset your password",
      script: "password-reset.js",
      body: passwordResetBody({ next: next(c), email: query(c, "email"), fromLink: fromLink(c) }),
    }),
  );
  app.get("/auth/emails/disown", (c) =>
    renderPage(c, {
      title: "Remove an address from your account",
      script: "email-disown.js",
      body: disownBody(),
    }),
  );
  app.get("/auth/disown", (c) =>
    renderPage(c, {
      title: "Undo a change to your account",
      script: "disown.js",
      body: disownBody("factor"),
    }),
  );
  app.get("/auth/invitations/accept", (c) =>
    renderPage(c, {
      title: "Accept an invitation",
      script: "invitation-accept.js",
      body: invitationBody({ next: next(c) }),
    }),
  );
}
