/**
 * The account page's script and stylesheet (served as `/auth/assets/account.js` and `account.css`).
 *
 * Session: `Auth.accessToken()` (assets.ts) keeps the token in memory and, on load, rotates the HttpOnly
 * `svc_refresh` cookie once, serialized across tabs; null (401 REFRESH_FAILED) sends the user to sign-in,
 * 503 is retried and never signs anyone out. A call answered 401 UNAUTHORIZED (token expired or session revoked) refreshes once and is retried.
 *
 * Step-up: an operation answered 428 STEP_UP_REQUIRED opens the one code prompt in the section that asked,
 * naming the masked address the code went to; the operation is repeated with the code (header
 * `X-Step-Up-Code`, or body `code` for the primary-address change). A wrong code (401 CODE_INVALID) is
 * announced and the prompt stays open; Cancel changes nothing.
 *
 * Everything the API returns is put into the page with textContent, never as HTML.
 */

import { DEVICE_NAME_JS, LIFE_JS } from "./account-life";

export const ACCOUNT_CSS = `
main { max-width: 52rem; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
section { border-top: 1px solid var(--line); margin-top: 2rem; }
h2:focus, h4:focus { outline: none; }
h3 { font-size: 1.05rem; margin: 1.5rem 0 .5rem; }
h4 { font-size: 1rem; margin: 1rem 0 .5rem; }
.whoami { display: flex; gap: 1rem; align-items: center; justify-content: space-between; flex-wrap: wrap; }
.whoami p { margin: 0; overflow-wrap: anywhere; }
td, th { overflow-wrap: anywhere; }
td.actions-cell { white-space: nowrap; }
td.actions-cell button { margin: 0 .25rem .25rem 0; padding: .3rem .7rem; }
.badge { display: inline-block; padding: 0 .45rem; border-radius: .3rem; border: 1px solid var(--line); font-size: .85rem; margin-right: .25rem; }
.badge.ok { color: var(--ok); border-color: var(--ok); }
.badge.pending { color: var(--muted); }
form { margin-top: 1rem; }
.notice { margin: 1rem 0; padding: 1rem; border: 1px solid var(--accent); border-radius: .4rem; }
.warning { color: var(--err); }
dl.secret dd { margin: 0 0 .75rem; }
dl.secret code { font-size: 1rem; overflow-wrap: anywhere; word-break: break-all; }
dl.secret dt { font-weight: 600; }
.codes { list-style: none; padding: 0; font-size: 1.05rem; }
.device { color: var(--muted); font-size: .8rem; font-weight: 400; display: block; }
#session-table td { white-space: nowrap; }
section > .actions { margin-top: 1rem; }
#stepup .hint { margin-bottom: .75rem; }
button.danger { background: var(--err); border-color: var(--err); color: #fff; }
#delete-account-title { color: var(--err); }
`;

export const ACCOUNT_JS = `"use strict";
(() => {
  const A = window.Auth;
  const $ = (id) => document.getElementById(id);
  const SIGN_IN = "/auth/sign-in?next=" + encodeURIComponent("/auth/account");
  let currentSession = null;

  /** Thrown when the session is gone: the page is leaving for sign-in. */
  class Halt extends Error {}

  function toSignIn() {
    A.clearSession();
    location.replace(SIGN_IN);
    throw new Halt("Your session has ended. Opening the sign-in page.");
  }

  async function session() {
    const t = await A.accessToken();
    if (!t) toSignIn();
    return t;
  }

  const unauthorized = (r) => r.status === 401 && r.body && r.body.code === "UNAUTHORIZED";

  /** An API call with the session's token; an expired or revoked token refreshes once and retries. */
  async function call(method, path, body, headers) {
    const first = await session();
    let r = await A.api(method, path, body, { token: first, headers });
    if (unauthorized(r)) {
      A.forgetToken(first);
      r = await A.api(method, path, body, { token: await session(), headers });
      if (unauthorized(r)) toSignIn();
    }
    return r;
  }

  const MESSAGES = {
    CODE_INVALID: "That code is not right, has expired or was already used. Check the newest e-mail and try again.",
    MFA_INVALID_CODE: "That code is not right. Enter the current 6-digit code from your authenticator app.",
    EMAIL_ALREADY_ADDED: "That address is already on your account.",
    EMAIL_LIMIT_REACHED: "Your account already has 10 addresses, the most it can hold. Remove one first.",
    EMAIL_TAKEN: "Another account proved this address first, so it cannot be added to yours.",
    EMAIL_NOT_VERIFIED: "Verify this address with its code before making it primary.",
    EMAIL_IS_PRIMARY: "This is your primary address, so it cannot be removed. Make another verified address primary first, then remove this one.",
    EMAIL_LAST_VERIFIED: "This is your only verified address, so it cannot be removed. Add and verify another address first.",
    EMAIL_NOT_FOUND: "That address is no longer on your account.",
    INVALID_EMAIL: "Enter a valid e-mail address, like name@example.com.",
    LAST_STRONG_FACTOR: "This is your only strong second factor. Set up an authenticator app or add another passkey before removing it.",
    PASSKEY_ALREADY_REGISTERED: "This passkey is already registered on an account.",
    PASSKEY_LIMIT_REACHED: "Your account already has 20 passkeys, the most it can hold. Remove one first.",
    PASSKEY_NOT_FOUND: "That passkey is no longer on your account.",
    PASSKEY_CEREMONY_INVALID: "The passkey registration expired. Try again.",
    PASSKEY_INVALID: "The passkey was refused. Try again, or use another authenticator.",
    PASSKEY_DISABLED: "Passkeys are not available on this service.",
    TOTP_ALREADY_ENROLLED: "An authenticator app is already set up. Remove it first to set up another.",
    RATE_LIMITED: "Too many attempts. Wait a few minutes, then try again.",
    TOO_MANY_ATTEMPTS: "Too many attempts. Wait a few minutes, then try again.",
    STEP_UP_UNAVAILABLE: "We could not send or check the confirmation code. Nothing was changed; try again shortly.",
  };

  function explain(r) {
    const code = r && r.body && r.body.code;
    return (code && Object.hasOwn(MESSAGES, code) && MESSAGES[code]) || A.message(r);
  }
  const fail = (r) => A.announce(explain(r), "error");
  const ok = (text) => A.announce(text, "ok");

  function el(tag, props, children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(props || {})) {
      if (value === undefined || value === null) continue;
      if (key === "text") node.textContent = value;
      else if (key === "className") node.className = value;
      else if (key === "onclick") node.addEventListener("click", value);
      else node.setAttribute(key, value);
    }
    for (const child of children || []) node.append(child);
    return node;
  }

  function when(iso) {
    if (!iso) return "Never";
    const d = new Date(iso);
    return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
  }

  /** Runs a button's action with the button disabled; errors are announced (a Halt is already leaving). */
  async function act(button, fn) {
    if (button) button.disabled = true;
    try { await fn(); }
    catch (err) { if (!(err instanceof Halt)) A.announce((err && err.message) || "Something went wrong. Try again.", "error"); }
    finally { if (button && button.isConnected) button.disabled = false; }
  }

  /* ---------- step-up ---------- */

  let prompt = null;

  function closePrompt(value) {
    const p = prompt;
    prompt = null;
    $("stepup").hidden = true;
    if (p) p.resolve(value);
    return p;
  }

  function askCode(sectionId, what, sentTo) {
    if (prompt) closePrompt(null);
    const form = $("stepup");
    $(sectionId).append(form);
    $("stepup-what").textContent = what;
    $("stepup-sent").textContent = sentTo || "your primary e-mail address";
    form.hidden = false;
    const input = $("f-stepup-code");
    input.value = "";
    input.focus();
    return new Promise((resolve) => { prompt = { resolve }; });
  }

  $("stepup").addEventListener("submit", (event) => {
    event.preventDefault();
    const code = $("f-stepup-code").value.trim();
    if (!code) { A.announce("Enter the code from the e-mail.", "error"); $("f-stepup-code").focus(); return; }
    closePrompt(code);
  });

  $("stepup-cancel").addEventListener("click", () => closePrompt(null));

  /**
   * Runs attempt(code) without a code first; while the server asks for step-up (428) or refuses the code
   * (401 CODE_INVALID), asks for the code and repeats. Null when the user cancelled.
   */
  async function withStepUp(sectionId, trigger, what, attempt) {
    let r = await attempt(undefined);
    let sentTo = null;
    let prompted = false;
    for (;;) {
      const code = r.body && r.body.code;
      if (r.status === 428 && code === "STEP_UP_REQUIRED") {
        sentTo = (r.body.details && r.body.details.sent_to) || sentTo;
        ok("To " + what + ", enter the code we sent to " + (sentTo || "your primary e-mail address") + ".");
      } else if (r.status === 401 && code === "CODE_INVALID" && prompted) {
        fail(r);
      } else {
        return r;
      }
      prompted = true;
      const entered = await askCode(sectionId, what, sentTo);
      if (entered === null) {
        ok("Cancelled. Nothing was changed.");
        // After act() has enabled the button again.
        if (trigger) setTimeout(() => { if (trigger.isConnected) trigger.focus(); });
        return null;
      }
      r = await attempt(entered);
    }
  }

  const stepUpHeader = (code) => (code ? { "x-step-up-code": code } : undefined);

  /* ---------- e-mail addresses ---------- */

  let verifying = null;

  function emailStatus(item) {
    const out = [];
    if (item.primary) out.push(el("span", { className: "badge ok", text: "Primary" }));
    if (item.verified) out.push(el("span", { className: "badge ok", text: "Verified" }));
    else out.push(el("span", { className: "badge pending", text: "Pending verification" }));
    if (item.usable_from) out.push(el("span", { className: "device", text: "Signs in and recovers the account from " + when(item.usable_from) }));
    return out;
  }

  function emailActions(item) {
    const buttons = [];
    if (!item.verified) {
      buttons.push(el("button", { type: "button", className: "secondary", "aria-label": "Enter the code for " + item.email, text: "Enter code", onclick: () => openVerify(item.email) }));
    }
    if (item.verified && !item.primary) {
      const b = el("button", { type: "button", className: "secondary", "aria-label": "Make " + item.email + " primary", text: "Make primary" });
      b.addEventListener("click", () => act(b, () => makePrimary(item, b)));
      buttons.push(b);
    }
    if (!item.primary) {
      const b = el("button", { type: "button", className: "secondary", "aria-label": "Remove " + item.email, text: "Remove" });
      b.addEventListener("click", () => act(b, () => removeEmail(item)));
      buttons.push(b);
    } else {
      buttons.push(el("span", { className: "hint", text: "Used for sign-in and confirmation codes" }));
    }
    return buttons;
  }

  async function loadEmails() {
    const r = await call("GET", "/emails");
    if (!r.ok) return fail(r);
    const body = $("email-table").tBodies[0];
    body.replaceChildren();
    for (const item of r.body.items) {
      body.append(el("tr", { "data-email": item.email }, [
        el("th", { scope: "row", text: item.email }),
        el("td", {}, emailStatus(item)),
        el("td", { className: "actions-cell" }, emailActions(item)),
      ]));
      if (item.primary) $("whoami").textContent = item.email;
    }
    const nudges = {
      add_backup_email: "Add a second address, so you can still recover your account if you lose this mailbox.",
      verify_pending_email: "An address is waiting for its code: choose Enter code next to it.",
    };
    const nudge = $("email-nudge");
    nudge.textContent = nudges[r.body.nudge] || "";
    nudge.hidden = !nudges[r.body.nudge];
  }

  function openVerify(address) {
    verifying = address;
    $("email-verify-target").textContent = address;
    $("email-verify").hidden = false;
    $("f-email-code").value = "";
    $("f-email-code").focus();
  }

  function closeVerify() {
    verifying = null;
    $("email-verify").hidden = true;
  }

  A.form($("email-add"), async (data) => {
    const address = String(data["new-email"] || "").trim();
    const r = await call("POST", "/emails", { email: address });
    if (r.status !== 202) { fail(r); $("f-new-email").focus(); return; }
    $("f-new-email").value = "";
    await loadEmails();
    ok("We sent a code to " + r.body.email + ". Enter it to verify the address.");
    openVerify(r.body.email);
  });

  A.form($("email-verify"), async (data) => {
    const address = verifying;
    const r = await call("POST", "/emails/verify", { email: address, code: String(data["email-code"] || "").trim() });
    if (!r.ok) {
      fail(r);
      if (r.status === 401 || r.status === 429) { $("f-email-code").focus(); $("f-email-code").select(); return; }
      closeVerify();
      await loadEmails();
      return;
    }
    closeVerify();
    await loadEmails();
    ok(address + " is verified.");
    $("f-new-email").focus();
  });

  $("email-verify-cancel").addEventListener("click", () => { closeVerify(); $("f-new-email").focus(); });

  async function makePrimary(item, button) {
    const r = await withStepUp("emails", button, "make " + item.email + " your primary address", (code) =>
      call("POST", "/emails/" + encodeURIComponent(item.id) + "/primary", code ? { code } : undefined),
    );
    if (!r) return;
    if (!r.ok) { fail(r); await loadEmails(); return; }
    await loadEmails();
    ok(item.email + " is now your primary address.");
    $("emails-title").focus();
  }

  async function removeEmail(item) {
    const r = await call("DELETE", "/emails/" + encodeURIComponent(item.id));
    if (r.status !== 204) { fail(r); await loadEmails(); return; }
    if (verifying === item.email) closeVerify();
    await loadEmails();
    ok("Removed " + item.email + ".");
    $("emails-title").focus();
  }

  /* ---------- two-factor: TOTP and recovery codes ---------- */

  async function loadFactors() {
    const r = await call("GET", "/mfa/methods");
    if (!r.ok) return fail(r);
    const enrolled = r.body.totp.enrolled;
    $("totp-state").textContent = enrolled
      ? "On: sign-in asks for a code from your authenticator app."
      : "Off: no authenticator app is set up.";
    $("totp-start").hidden = enrolled || !$("totp-enroll").hidden;
    $("totp-remove").hidden = !enrolled;
    const left = r.body.recovery_codes.remaining;
    $("recovery-state").textContent = left === 0
      ? "You have no unused recovery codes."
      : "You have " + left + " unused recovery code" + (left === 1 ? "" : "s") + ".";
  }

  $("totp-start").addEventListener("click", (event) => act(event.currentTarget, async () => {
    // An account that already has a sign-in factor proves it is the owner first (428, the mailed code).
    const r = await withStepUp("two-factor", $("totp-start"), "add an authenticator app", (code) =>
      call("POST", "/mfa/totp", undefined, stepUpHeader(code)),
    );
    if (r === null) return;
    if (!r.ok) { fail(r); await loadFactors(); return; }
    // Grouped in blocks of 4 for typing; authenticator apps ignore the spaces.
    $("totp-secret").textContent = String(r.body.secret).replace(/(.{4})(?=.)/g, "$1 ");
    $("totp-uri").textContent = r.body.otpauth_uri;
    const qr = await call("GET", "/mfa/totp/qr");
    if (qr.ok && qr.body && typeof qr.body.svg === "string") {
      $("totp-qr").src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(qr.body.svg);
      $("totp-qr").hidden = false;
    }
    $("totp-enroll").hidden = false;
    $("totp-start").hidden = true;
    ok("Add the secret key to your authenticator app, then enter the code it shows.");
    $("f-totp-code").focus();
  }));

  function closeEnroll() {
    $("totp-enroll").hidden = true;
    $("totp-secret").textContent = "";
    $("totp-qr").hidden = true;
    $("totp-qr").removeAttribute("src");
    $("totp-uri").textContent = "";
    $("f-totp-code").value = "";
  }

  $("totp-cancel").addEventListener("click", async () => {
    closeEnroll();
    await loadFactors().catch(() => {});
    ok("Set-up cancelled. The authenticator app is not turned on.");
    $("totp-start").focus();
  });

  A.form($("totp-confirm"), async (data) => {
    const r = await call("POST", "/mfa/totp/confirm", { code: String(data["totp-code"] || "").trim() });
    if (!r.ok) {
      fail(r);
      if (r.status === 404) { closeEnroll(); await loadFactors(); return; }
      $("f-totp-code").focus();
      $("f-totp-code").select();
      return;
    }
    closeEnroll();
    await loadFactors();
    if (r.body.recovery_codes) {
      showRecovery(r.body.recovery_codes, "The authenticator app is on. Save your recovery codes now: they are shown only once.");
    } else {
      ok("The authenticator app is on.");
      $("two-factor-title").focus();
    }
  });

  $("totp-remove").addEventListener("click", (event) => {
    const button = event.currentTarget;
    act(button, async () => {
      const r = await withStepUp("two-factor", button, "remove the authenticator app", (code) =>
        call("DELETE", "/mfa/totp", undefined, stepUpHeader(code)),
      );
      if (!r) return;
      if (r.status !== 204) return fail(r);
      await loadFactors();
      ok("The authenticator app was removed.");
      $("two-factor-title").focus();
    });
  });

  function showRecovery(codes, message) {
    const list = $("recovery-codes");
    list.replaceChildren(...codes.map((c) => el("li", {}, [el("code", { text: c })])));
    $("recovery-shown").hidden = false;
    ok(message);
    $("recovery-title").focus();
  }

  $("recovery-generate").addEventListener("click", (event) => {
    const button = event.currentTarget;
    act(button, async () => {
      const r = await withStepUp("two-factor", button, "generate new recovery codes", (code) =>
        call("POST", "/mfa/recovery-codes/generate", undefined, stepUpHeader(code)),
      );
      if (!r) return;
      if (!r.ok) return fail(r);
      await loadFactors();
      showRecovery(r.body.recovery_codes, "New recovery codes generated; the old ones no longer work. Save these now: they are shown only once.");
    });
  });

  $("recovery-copy").addEventListener("click", async () => {
    const text = Array.from($("recovery-codes").querySelectorAll("code"), (c) => c.textContent).join("\\n");
    try { await navigator.clipboard.writeText(text); ok("Recovery codes copied."); }
    catch { A.announce("Copying is not allowed here: select the codes and copy them by hand.", "error"); }
  });

  $("recovery-done").addEventListener("click", () => {
    $("recovery-codes").replaceChildren();
    $("recovery-shown").hidden = true;
    ok("The recovery codes are hidden. Generate new ones if you lose them.");
    $("recovery-generate").focus();
  });

  /* ---------- passkeys ---------- */

  let passkeysOn = true;

  async function loadPasskeys() {
    const r = await call("GET", "/mfa/passkey");
    if (r.status === 501) {
      passkeysOn = false;
      $("passkey-table").hidden = true;
      $("passkey-add").hidden = true;
      $("passkey-empty").hidden = false;
      $("passkey-empty").textContent = MESSAGES.PASSKEY_DISABLED;
      return;
    }
    if (!r.ok) return fail(r);
    const body = $("passkey-table").tBodies[0];
    body.replaceChildren();
    for (const item of r.body.items) {
      const name = item.name || "Passkey added " + when(item.created_at);
      const remove = el("button", { type: "button", className: "secondary", "aria-label": "Remove passkey " + name, text: "Remove" });
      remove.addEventListener("click", () => act(remove, () => removePasskey(item, name, remove)));
      body.append(el("tr", {}, [
        el("th", { scope: "row", text: name }),
        el("td", { text: when(item.created_at) }),
        el("td", { text: when(item.last_used_at) }),
        el("td", { text: item.discoverable === true ? "Yes" : item.discoverable === false ? "No (needs your password first)" : "Unknown" }),
        el("td", { className: "actions-cell" }, [remove]),
      ]));
    }
    $("passkey-table").hidden = r.body.items.length === 0;
    $("passkey-empty").hidden = r.body.items.length !== 0;
  }

  function creationError(err) {
    const name = err && err.name;
    if (name === "InvalidStateError") return "This device or security key already holds a passkey for your account. Nothing new was registered.";
    if (name === "NotAllowedError") return "No passkey was created: the request was cancelled or timed out.";
    if (name === "SecurityError") return "This page's address cannot create passkeys for this service.";
    return "The passkey could not be created" + (err && err.message ? ": " + err.message : ".");
  }

  A.form($("passkey-add"), async (data) => {
    if (!passkeysOn) return A.announce(MESSAGES.PASSKEY_DISABLED, "error");
    if (!window.PublicKeyCredential || !navigator.credentials) {
      return A.announce("This browser does not support passkeys.", "error");
    }
    const begin = await withStepUp("passkeys", null, "add a passkey", (code) =>
      call("POST", "/mfa/passkey/register/begin", {}, stepUpHeader(code)),
    );
    if (begin === null) return;
    if (!begin.ok) return fail(begin);
    let credential;
    try {
      credential = await navigator.credentials.create({ publicKey: A.passkey.creationOptions(begin.body.publicKey) });
    } catch (err) {
      A.announce(creationError(err), "error");
      return;
    }
    if (!credential) return A.announce("No passkey was created.", "error");
    const name = String(data["passkey-name"] || "").trim();
    const finish = await call("POST", "/mfa/passkey/register/finish", {
      credential: A.passkey.toJSON(credential),
      name: name || undefined,
    });
    if (finish.status !== 201) return fail(finish);
    $("f-passkey-name").value = "";
    await Promise.all([loadPasskeys(), loadFactors()]);
    ok("Passkey added" + (name ? ": " + name : "") + ".");
    $("passkeys-title").focus();
  });

  async function removePasskey(item, name, button) {
    const r = await withStepUp("passkeys", button, "remove passkey " + name, (code) =>
      call("DELETE", "/mfa/passkey/" + encodeURIComponent(item.id), undefined, stepUpHeader(code)),
    );
    if (!r) return;
    if (r.status !== 204) { fail(r); await loadPasskeys(); return; }
    await Promise.all([loadPasskeys(), loadFactors()]);
    ok("Removed passkey " + name + ".");
    $("passkeys-title").focus();
  }

  /* ---------- password ---------- */

  A.form($("password-change"), async (data) => {
    const body = { current_password: String(data["current-password"] || ""), new_password: String(data["new-password"] || "") };
    const r = await withStepUp("password", $("password-change").querySelector("button[type=submit]"), "change your password", (code) =>
      call("POST", "/password/change", body, stepUpHeader(code)),
    );
    if (!r) return;
    if (r.status !== 204) return fail(r);
    $("f-current-password").value = "";
    $("f-new-password").value = "";
    await loadSessions();
    ok("Password changed. Every other session was signed out.");
    $("password-title").focus();
  });

  /* ---------- sessions ---------- */

  const FACTORS = {
    recovery_code: "recovery code", email_verify: "e-mail confirmation", magic_link: "e-mail link",
    password_reset: "password reset",
    password: "password", totp: "authenticator app", email: "e-mail code", passkey: "passkey",
    recovery: "recovery code", sms: "text message", invitation: "invitation",
  };

  /** "magic_link_totp" -> "e-mail link + authenticator app". */
  function methodName(method) {
    const parts = [];
    let rest = String(method || "");
    while (rest) {
      const key = Object.keys(FACTORS).find((k) => rest === k || rest.startsWith(k + "_"));
      if (!key) { parts.push(rest.replace(/_/g, " ")); break; }
      parts.push(FACTORS[key]);
      rest = rest.slice(key.length + 1);
    }
    const text = parts.join(" + ");
    return text.charAt(0).toUpperCase() + text.slice(1);
  }

  async function loadSessions() {
    const r = await call("GET", "/sessions");
    if (!r.ok) return fail(r);
    const body = $("session-table").tBodies[0];
    body.replaceChildren();
    for (const s of r.body.items) {
      if (s.current) currentSession = s.id;
      const device = ${DEVICE_NAME_JS};
      const label = s.current ? "This session" : "Session signed in " + when(s.created_at);
      const cells = [
        el("th", { scope: "row" }, [
          el("span", { text: label }),
          s.trusted_device ? el("span", { className: "badge ok", text: "Trusted device" }) : "",
          el("span", { className: "device", text: device }),
        ]),
        el("td", { text: when(s.created_at) }),
        el("td", { text: methodName(s.auth_method) }),
        el("td", { text: s.ip || "Unknown" }),
      ];
      let action;
      if (s.current) {
        action = el("span", { className: "badge ok", text: "Current" });
      } else {
        action = el("button", { type: "button", className: "secondary", "aria-label": "Sign out of the session signed in " + when(s.created_at), text: "Sign out" });
        action.addEventListener("click", () => act(action, () => endSession(s)));
      }
      cells.push(el("td", { className: "actions-cell" }, [action]));
      body.append(el("tr", s.current ? { "aria-current": "true" } : {}, cells));
    }
  }

  async function endSession(s) {
    const r = await call("DELETE", "/sessions/" + encodeURIComponent(s.id));
    if (r.status !== 204 && r.status !== 404) return fail(r);
    await loadSessions();
    ok(r.status === 404 ? "That session had already ended." : "Signed out of the session signed in " + when(s.created_at) + ".");
    $("sessions-title").focus();
  }

  function leave() {
    A.clearSession();
    location.assign("/auth/sign-in");
  }

  $("sessions-others").addEventListener("click", (event) => {
    const button = event.currentTarget;
    act(button, async () => {
      const r = await withStepUp("sessions", button, "sign out of all other sessions", (code) =>
        call("DELETE", "/sessions?keep_current=true", undefined, stepUpHeader(code)),
      );
      if (!r) return;
      if (r.status !== 204) return fail(r);
      await loadSessions();
      ok("Signed out of all other sessions. This one stays signed in.");
      $("sessions-title").focus();
    });
  });

  $("sessions-all").addEventListener("click", (event) => {
    const button = event.currentTarget;
    act(button, async () => {
      const r = await withStepUp("sessions", button, "sign out everywhere, this session included", (code) =>
        call("DELETE", "/sessions", undefined, stepUpHeader(code)),
      );
      if (!r) return;
      if (r.status !== 204) return fail(r);
      ok("Signed out everywhere. Opening the sign-in page.");
      leave();
    });
  });

  $("sign-out").addEventListener("click", (event) => act(event.currentTarget, async () => {
    if (!currentSession) await loadSessions();
    const r = await call("DELETE", "/sessions/" + encodeURIComponent(currentSession || "unknown"));
    if (r.status !== 204 && r.status !== 404) return fail(r);
    ok("Signed out. Opening the sign-in page.");
    leave();
  }));

  /* ---------- security events ---------- */

  const EVENT_LABELS = {
    sign_in_succeeded: "Signed in", sign_in_failed: "Failed sign-in", sign_in_locked: "Sign-in refused: locked",
    factor_added: "Second factor added", factor_removed: "Second factor removed",
    recovery_codes_generated: "Recovery codes generated", recovery_code_used: "Recovery code used",
    address_added: "Address added", address_verified: "Address verified",
    address_made_primary: "Address made primary", address_removed: "Address removed",
    password_changed: "Password changed", password_reset: "Password reset",
    sessions_revoked: "Signed out of sessions", not_me_used: "\u201CThis was not me\u201D used",
    account_deletion_requested: "Account deletion asked for", account_deletion_cancelled: "Account deletion cancelled",
  };
  let eventCursor = null;

  function eventWhat(item) {
    const label = EVENT_LABELS[item.type] || item.type.replace(/_/g, " ");
    return item.type.startsWith("address_") && item.detail ? label + ": " + item.detail : label;
  }

  async function loadEvents(more) {
    const query = "?limit=20" + (more && eventCursor ? "&cursor=" + encodeURIComponent(eventCursor) : "");
    const r = await call("GET", "/events" + query);
    if (!r.ok) return fail(r);
    const body = $("event-table").tBodies[0];
    if (!more) body.replaceChildren();
    for (const item of r.body.items) {
      body.append(el("tr", {}, [
        el("th", { scope: "row", text: eventWhat(item) }),
        el("td", { text: when(item.created_at) }),
        el("td", { text: item.method ? methodName(item.method) : "" }),
        el("td", { text: item.ip_prefix || "Unknown" }),
        el("td", { text: item.user_agent || "Unknown" }),
      ]));
    }
    eventCursor = r.body.next_cursor;
    $("events-more").hidden = !eventCursor;
    $("events-empty").hidden = body.rows.length > 0;
  }

  $("events-more").addEventListener("click", (event) => act(event.currentTarget, () => loadEvents(true)));

${LIFE_JS}
  /* ---------- start ---------- */

  async function load(fn) {
    try { await fn(); }
    catch (err) { if (!(err instanceof Halt)) A.announce((err && err.message) || "Something went wrong. Reload the page.", "error"); }
  }

  async function start() {
    try {
      await session();
    } catch (err) {
      if (!(err instanceof Halt)) {
        $("loading").textContent = "";
        A.announce((err && err.message) || "We could not load your account. Reload the page.", "error");
      }
      return;
    }
    await Promise.all([load(loadEmails), load(loadFactors), load(loadPasskeys), load(loadSessions), load(() => loadEvents(false))]);
    $("loading").hidden = true;
    $("account").hidden = false;
  }

  start();
})();
`;
