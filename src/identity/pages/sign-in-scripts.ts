/**
 * The scripts of the sign-in side, as plain JS (a strict CSP forbids inline code; no bundler). Each page's
 * asset is `FLOW_JS` (where to go once signed in, and the second step shared by the password sign-in and
 * the magic link) followed by the page's own part. They run after `common.js` (`window.Auth`).
 */

import { SSO_PAGE_JS, SSO_START_JS } from "../sso/page";

const FLOW_JS = `"use strict";
(() => {
  const A = window.Auth;
  const DEFAULT_NEXT = "/auth/account";
  const $ = (selector) => document.querySelector(selector);

  // Checked on the server already (safeNextPath); checked again, the same way, so a tampered attribute
  // cannot leave the origin: the value and the path it normalises to must both resolve on this origin.
  function sameOriginPath(value) {
    try {
      const url = new URL(value, location.origin);
      return url.origin === location.origin ? url.pathname + url.search + url.hash : null;
    } catch {
      return null;
    }
  }

  // One leading slash, no backslash (92), space, control character or DEL.
  function plainPath(value) {
    if (value.charAt(0) !== "/" || value.charAt(1) === "/") return false;
    for (let i = 0; i < value.length; i++) {
      const code = value.charCodeAt(i);
      if (code <= 32 || code === 92 || code === 127) return false;
    }
    return true;
  }

  function nextPath() {
    const el = $("[data-next]");
    const value = el ? el.getAttribute("data-next") || "" : "";
    if (!plainPath(value)) return DEFAULT_NEXT;
    const path = sameOriginPath(value);
    return path && sameOriginPath(path) === path ? path : DEFAULT_NEXT;
  }

  function withNext(path, extra) {
    const query = new URLSearchParams(extra || {});
    if (nextPath() !== DEFAULT_NEXT) query.set("next", nextPath());
    const text = query.toString();
    return text ? path + "?" + text : path;
  }

  function signedIn(body, note) {
    A.setSession(body);
    A.announce("Signed in." + (note ? " " + note : ""), "ok");
    location.assign(nextPath());
  }

  const flow = { challenge: null, methods: [], restart: null };
  const PREFERRED = ["totp", "passkey", "sms", "email", "recovery_code"];

  function show(method) {
    document.querySelectorAll("#second-factor form[data-method]").forEach((form) => {
      form.hidden = form.getAttribute("data-method") !== method;
    });
    let others = 0;
    document.querySelectorAll("#second-factor [data-switch]").forEach((button) => {
      const m = button.getAttribute("data-switch");
      button.hidden = m === method || flow.methods.indexOf(m) === -1;
      if (!button.hidden) others += 1;
    });
    $("#sf-others").hidden = others === 0;
    const first = $("#sf-" + method + " input, #sf-" + method + " button");
    if (first) first.focus();
  }

  function startSecondFactor(opened, options) {
    flow.challenge = opened.challenge;
    flow.methods = opened.methods || [];
    flow.restart = options && options.restart;
    $("#second-factor").hidden = false;
    const method = PREFERRED.find((m) => flow.methods.indexOf(m) !== -1) || flow.methods[0];
    show(method);
  }

  function failed(result, form) {
    const body = result.body || {};
    if (body.code === "MFA_INVALID_CODE") {
      const left = body.details ? body.details.attempts_remaining : undefined;
      const rest = typeof left === "number" ? " " + left + (left === 1 ? " attempt" : " attempts") + " left." : "";
      form.querySelectorAll("input[inputmode], input[name=recovery_code]").forEach((input) => { input.value = ""; });
      const used = body.details && body.details.reason === "code_already_used";
      A.announce((used ? "That code was already used: wait for the next one." : "That code is not right.") + rest, "error");
      return;
    }
    if (body.code === "TOO_MANY_ATTEMPTS" || body.code === "CHALLENGE_INVALID") {
      $("#second-factor").hidden = true;
      if (flow.restart) flow.restart();
      A.announce(A.message(result) + " Start again.", "error");
      return;
    }
    A.announce(A.message(result), "error");
  }

  async function verify(form, method, proof) {
    const box = form.querySelector("input[name=trust_device]");
    const wantsTrust = !!(box && box.checked);
    const body = Object.assign({ challenge: flow.challenge, method: method, trust_device: wantsTrust }, proof);
    const result = await A.api("POST", "/login/mfa/verify", body, { token: false });
    if (!result.ok) return failed(result, form);
    let note = "";
    if (wantsTrust) note = result.body.trusted_device ? "This device stays signed in for 90 days." : "This device was not marked as trusted.";
    signedIn(result.body, note);
  }

  async function usePasskey(form) {
    if (!window.PublicKeyCredential || !navigator.credentials) {
      A.announce("This browser cannot use passkeys here. Choose another way.", "error");
      return;
    }
    const options = await A.api("POST", "/login/mfa/send", { challenge: flow.challenge, method: "passkey" }, { token: false });
    if (!options.ok) return failed(options, form);
    let credential = null;
    try {
      credential = await navigator.credentials.get({ publicKey: A.passkey.requestOptions(options.body.publicKey) });
    } catch (err) {
      credential = null;
    }
    if (!credential) {
      A.announce("No passkey was used (cancelled or timed out). Try again or choose another way.", "error");
      return;
    }
    await verify(form, "passkey", { credential: A.passkey.toJSON(credential) });
  }

  async function sendCode(button) {
    const method = button.getAttribute("data-send");
    button.disabled = true;
    try {
      const result = await A.api("POST", "/login/mfa/send", { challenge: flow.challenge, method: method }, { token: false });
      if (!result.ok) return failed(result, button.form);
      A.announce((method === "email" ? "We e-mailed you a code." : "We texted you a code.") + " It expires in 10 minutes.", "ok");
      const input = button.form.querySelector("input[inputmode]");
      if (input) input.focus();
    } finally {
      button.disabled = false;
    }
  }

  document.querySelectorAll("#second-factor form[data-method]").forEach((form) => {
    const method = form.getAttribute("data-method");
    A.form(form, async (data) => {
      if (method === "passkey") return usePasskey(form);
      const code = data.totp_code || data.email_code || data.sms_code || data.recovery_code || "";
      await verify(form, method, { code: code.trim() });
    });
  });
  document.querySelectorAll("#second-factor [data-send]").forEach((button) => {
    button.addEventListener("click", () => sendCode(button));
  });
  document.querySelectorAll("#second-factor [data-switch]").forEach((button) => {
    button.addEventListener("click", () => {
      A.announce("");
      show(button.getAttribute("data-switch"));
    });
  });

  window.SignIn = { nextPath: nextPath, withNext: withNext, signedIn: signedIn, startSecondFactor: startSecondFactor };
})();
`;

const SIGN_IN_JS = `(() => {
  const A = window.Auth;
  const S = window.SignIn;
  const form = document.getElementById("password-form");
  const noFactor = document.getElementById("no-factor");
  const email = form.querySelector("input[name=email]");
  const password = form.querySelector("input[name=password]");

  function restart() {
    form.hidden = false;
    noFactor.hidden = true;
    password.value = "";
  }

  A.form(form, async (data) => {
    noFactor.hidden = true;
    const result = await A.api("POST", "/login/start", { email: data.email, password: data.password }, { token: false });
    if (result.ok) {
      form.hidden = true;
      A.announce("");
      S.startSecondFactor(result.body, { restart: restart });
      return;
    }
    const code = result.body && result.body.code;
    if (code === "MFA_NOT_ENROLLED") {
      noFactor.hidden = false;
      A.announce("Your password is right, but this account has no second factor yet.", "ok");
      document.getElementById("send-link").focus();
      return;
    }
    if (code === "INVALID_CREDENTIALS") return A.announce("Wrong e-mail or password.", "error");
    if (code === "EMAIL_NOT_VERIFIED") return A.announce("Confirm your e-mail address first with the code we e-mailed at sign-up.", "error");
    A.announce(A.message(result), "error");
  });

  const passkeyFirst = document.getElementById("passkey-first");
  const passkeyButton = document.getElementById("passkey-sign-in");
  if (!window.PublicKeyCredential || !navigator.credentials) passkeyFirst.hidden = true;

  // Passkey-first: no e-mail, no password; the browser offers the passkeys it holds for this service.
  async function passkeySignIn() {
    const options = await A.api("POST", "/login/passkey/begin", {}, { token: false });
    if (!options.ok) return A.announce(A.message(options), "error");
    let credential = null;
    try {
      credential = await navigator.credentials.get({ publicKey: A.passkey.requestOptions(options.body.publicKey) });
    } catch (err) {
      credential = null;
    }
    if (!credential) return A.announce("No passkey was used (cancelled or timed out). Try again or sign in with your password.", "error");
    const result = await A.api("POST", "/login/passkey/finish", { credential: A.passkey.toJSON(credential) }, { token: false });
    if (result.ok) return S.signedIn(result.body, "");
    const code = result.body && result.body.code;
    if (code === "PASSKEY_INVALID") return A.announce("That passkey could not sign you in. It may have been removed from your account, or it only works after your password.", "error");
    if (code === "EMAIL_NOT_VERIFIED") return A.announce("Confirm your e-mail address first with the code we e-mailed at sign-up.", "error");
    A.announce(A.message(result), "error");
  }

  passkeyButton.addEventListener("click", async () => {
    passkeyButton.disabled = true;
    try {
      await passkeySignIn();
    } finally {
      passkeyButton.disabled = false;
    }
  });

  document.getElementById("send-link").addEventListener("click", async () => {
    const result = await A.api("POST", "/magic-link/request", { email: email.value }, { token: false });
    if (!result.ok) return A.announce(A.message(result), "error");
    location.assign(S.withNext("/auth/magic-link", { email: email.value, sent: "1" }));
  });
})();
`;

const SIGN_UP_JS = `(() => {
  const A = window.Auth;
  const S = window.SignIn;
  A.form(document.getElementById("sign-up-form"), async (data) => {
    const result = await A.api("POST", "/signup", { email: data.email, password: data.password }, { token: false });
    if (!result.ok) return A.announce(A.message(result), "error");
    location.assign(S.withNext("/auth/confirm", { email: data.email }));
  });
})();
`;

const CONFIRM_JS = `(() => {
  const A = window.Auth;
  const S = window.SignIn;
  const form = document.getElementById("confirm-form");
  A.form(form, async (data) => {
    const result = await A.api("POST", "/email/verify/confirm", { email: data.email, code: data.code.trim() }, { token: false });
    if (result.ok) return S.signedIn(result.body);
    if (result.body && result.body.code === "CODE_INVALID") return A.announce("That code is not right, or it expired.", "error");
    A.announce(A.message(result), "error");
  });
  const email = form.querySelector("input[name=email]");
  (email.value ? form.querySelector("input[name=code]") : email).focus();
})();
`;

const MAGIC_LINK_JS = `(() => {
  const A = window.Auth;
  const S = window.SignIn;
  const params = A.params();
  const requestForm = document.getElementById("request-form");
  const codeForm = document.getElementById("code-form");
  const linkForm = document.getElementById("link-form");
  const SENT = "If the address has an account, we e-mailed it a sign-in link and a code. They expire in 15 minutes.";

  async function verify(email, code) {
    const result = await A.api("POST", "/magic-link/verify", { email: email, code: code }, { token: false });
    if (result.ok && result.body && result.body.mfa_required) {
      [requestForm, codeForm, linkForm].forEach((form) => { if (form) form.hidden = true; });
      A.announce("");
      S.startSecondFactor(result.body, { restart: () => location.assign(S.withNext("/auth/magic-link", { email: email })) });
      return;
    }
    if (result.ok) return S.signedIn(result.body);
    if (result.body && result.body.code === "CODE_INVALID") {
      return A.announce(linkForm ? "This link is invalid, expired or already used. Ask for a new one." : "That code is not right, or it expired.", "error");
    }
    A.announce(A.message(result), "error");
  }

  function showCodeForm() {
    codeForm.hidden = false;
    A.announce(SENT, "ok");
    codeForm.querySelector("input").focus();
  }

  A.form(requestForm, async (data) => {
    const result = await A.api("POST", "/magic-link/request", { email: data.email }, { token: false });
    if (!result.ok) return A.announce(A.message(result), "error");
    showCodeForm();
  });
  A.form(codeForm, (data) => verify(requestForm.querySelector("input[name=email]").value, data.code.trim()));
  A.form(linkForm, () => verify(params.get("email") || "", params.get("code") || ""));
  if (linkForm) linkForm.querySelector("button").focus();
  else if (params.get("sent") === "1") showCodeForm();
})();
`;

const PASSWORD_RESET_JS = `(() => {
  const A = window.Auth;
  const S = window.SignIn;
  const params = A.params();
  const requestForm = document.getElementById("request-form");
  const resetForm = document.getElementById("reset-form");

  A.form(requestForm, async (data) => {
    const result = await A.api("POST", "/password/reset/request", { email: data.email }, { token: false });
    if (!result.ok) return A.announce(A.message(result), "error");
    resetForm.hidden = false;
    A.announce("If the address has an account, we e-mailed it a reset link and a code. They expire in 30 minutes.", "ok");
    resetForm.querySelector("input").focus();
  });

  A.form(resetForm, async (data) => {
    const email = requestForm ? requestForm.querySelector("input[name=email]").value : params.get("email") || "";
    const code = requestForm ? data.code.trim() : params.get("code") || "";
    const result = await A.api("POST", "/password/reset/confirm", { email: email, code: code, new_password: data.new_password }, { token: false });
    if (result.ok) {
      A.clearSession();
      location.assign(S.withNext("/auth/sign-in", { email: email, reset: "1" }));
      return;
    }
    if (result.body && result.body.code === "CODE_INVALID") {
      return A.announce(requestForm ? "That code is not right, or it expired." : "This link is invalid, expired or already used. Ask for a new one.", "error");
    }
    A.announce(A.message(result), "error");
  });
  if (!requestForm) resetForm.querySelector("input").focus();
})();
`;

/** The "this was not me" page's script: `endpoint` takes the link's token. */
const disownScript = (endpoint: string, done: string) => `(() => {
  const A = window.Auth;
  const token = A.params().get("token") || "";
  const form = document.getElementById("disown-form");
  A.form(form, async () => {
    const result = await A.api("POST", "${endpoint}", { token: token }, { token: false });
    if (result.ok) {
      form.hidden = true;
      document.getElementById("disown-done").hidden = false;
      A.clearSession();
      A.announce("${done} Sign in again and change your password.", "ok");
      return;
    }
    if (result.body && result.body.code === "CODE_INVALID") return A.announce("This link is invalid or expired (links work for 7 days).", "error");
    A.announce(A.message(result), "error");
  });
})();
`;

const DISOWN_JS = disownScript(
  "/emails/disown",
  "The address was removed and every session of the account signed out.",
);
const FACTOR_DISOWN_JS = disownScript(
  "/disown",
  "It was undone and every session of the account signed out.",
);

const INVITATION_JS = `(() => {
  const A = window.Auth;
  const S = window.SignIn;
  const token = A.params().get("token") || "";
  const form = document.getElementById("invitation-form");
  A.form(form, async (data) => {
    const body = { token: token };
    if (data.password) body.password = data.password;
    const result = await A.api("POST", "/invitations/accept", body, { token: false });
    if (result.ok && result.body.access_token) return S.signedIn(result.body);
    if (result.ok) {
      form.hidden = true;
      document.getElementById("invitation-done").hidden = false;
      A.announce("Invitation accepted. Sign in to continue.", "ok");
      return;
    }
    if (result.status === 404) return A.announce("This invitation is unknown, already used, revoked or expired. Ask for a new one.", "error");
    A.announce(A.message(result), "error");
  });
})();
`;

/** The scripts by asset name (`/auth/assets/<name>`). */
export const SIGN_IN_SCRIPTS = {
  "sign-in.js": FLOW_JS + SIGN_IN_JS + SSO_START_JS,
  "sso.js": FLOW_JS + SSO_PAGE_JS,
  "sign-up.js": FLOW_JS + SIGN_UP_JS,
  "confirm.js": FLOW_JS + CONFIRM_JS,
  "magic-link.js": FLOW_JS + MAGIC_LINK_JS,
  "password-reset.js": FLOW_JS + PASSWORD_RESET_JS,
  "email-disown.js": DISOWN_JS,
  "disown.js": FACTOR_DISOWN_JS,
  "invitation-accept.js": FLOW_JS + INVITATION_JS,
} as const;
