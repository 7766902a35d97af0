/**
 * The markup of the sign-in side's pages. Every form posts nowhere useful without its script (`method=post`
 * to the page itself, so a password never lands in a URL); the scripts read `data-next` for where to go
 * once signed in (already checked on the server by `safeNextPath`).
 */

import { ssoStartSection } from "../sso/page";
import { field, type Html, html } from "./layout";
import { withNext } from "./sign-in-next";

const NOSCRIPT = html`<noscript><p class="status error">This page needs JavaScript to talk to the sign-in service.</p></noscript>`;

function links(next: string, items: [path: string, text: string][]) {
  return html`<nav class="links" aria-label="Other ways in">${items.map(
    ([path, text]) => html`<a href="${withNext(path, next)}">${text}</a>`,
  )}</nav>`;
}

/** The second step, shared by the password sign-in and the magic link: one form per method. */
export function secondFactorSection(): Html {
  const codeField = (name: string, label: string, hint?: string) =>
    field({
      name,
      label,
      hint,
      autocomplete: "one-time-code",
      inputmode: "numeric",
      pattern: "[0-9]{6}",
      maxlength: 6,
    });
  // One box per form, just before its button (the order a keyboard meets it); none for recovery codes,
  // which never earn a trusted device.
  const trustBox = (
    method: string,
  ) => html`<div class="check"><input type="checkbox" id="f-trust-${method}" name="trust_device" aria-describedby="f-trust-${method}-hint"><label for="f-trust-${method}">Trust this device for 90 days</label></div>
<p class="hint" id="f-trust-${method}-hint">Stay signed in here for 90 days. Only on a device you alone use.</p>`;
  return html`<section id="second-factor" hidden aria-labelledby="sf-title">
<h2 id="sf-title" tabindex="-1">Confirm it is you</h2>
<p class="hint">Your account asks for a second step.</p>
<form id="sf-totp" data-method="totp" method="post" hidden>
${codeField("totp_code", "Code from your authenticator app", "The 6 digits your app shows now.")}
${trustBox("totp")}
<button type="submit">Verify</button>
</form>
<form id="sf-email" data-method="email" method="post" hidden>
<p class="hint">We e-mail a 6-digit code to your primary address.</p>
<p><button type="button" class="secondary" data-send="email">E-mail me a code</button></p>
${codeField("email_code", "Code from the e-mail")}
${trustBox("email")}
<button type="submit">Verify</button>
</form>
<form id="sf-sms" data-method="sms" method="post" hidden>
<p class="hint">We text a 6-digit code to your phone.</p>
<p><button type="button" class="secondary" data-send="sms">Text me a code</button></p>
${codeField("sms_code", "Code from the text message")}
${trustBox("sms")}
<button type="submit">Verify</button>
</form>
<form id="sf-passkey" data-method="passkey" method="post" hidden>
<p class="hint">Use the passkey saved on this device, your phone or a security key.</p>
${trustBox("passkey")}
<button type="submit">Use a passkey</button>
</form>
<form id="sf-recovery_code" data-method="recovery_code" method="post" hidden>
${field({
  name: "recovery_code",
  label: "Recovery code",
  hint: "One of the ten codes you saved, like ABCDE-12345. Each works once.",
  autocomplete: "off",
  maxlength: 32,
})}
<button type="submit">Verify</button>
</form>
<div id="sf-others" hidden>
<h3>Other ways to confirm</h3>
<div class="actions">
<button type="button" class="secondary" data-switch="totp" hidden>Authenticator app</button>
<button type="button" class="secondary" data-switch="passkey" hidden>Passkey</button>
<button type="button" class="secondary" data-switch="email" hidden>E-mail code</button>
<button type="button" class="secondary" data-switch="sms" hidden>Text message</button>
<button type="button" class="secondary" data-switch="recovery_code" hidden>Recovery code</button>
</div>
</div>
</section>`;
}

/**
 * The sign-in page: the first step (password, passkey-first, single sign-on) in `#first-step`, which the
 * script hides as a whole when the second step (`#second-factor`) opens, so "Confirm it is you" shows
 * only the second factor.
 */
export function signInBody(input: { next: string; email: string; reset: boolean }): Html {
  return html`<div id="flow" data-next="${input.next}">
${NOSCRIPT}
${input.reset ? html`<p class="status ok">Your password was changed and every session signed out. Sign in with the new password.</p>` : ""}
<div id="first-step">
<form id="password-form" method="post">
${field({ name: "email", label: "E-mail", type: "email", autocomplete: "username", value: input.email })}
${field({ name: "password", label: "Password", type: "password", autocomplete: "current-password" })}
<button type="submit">Continue</button>
</form>
<div id="no-factor" hidden>
<p>This account has no second factor yet, so it signs in with a link e-mailed to it. Once in, add an authenticator app or a passkey on your account page to sign in with your password.</p>
<button type="button" id="send-link">E-mail me a sign-in link</button>
</div>
<div id="passkey-first">
<p>Or, without your password:</p>
<button type="button" id="passkey-sign-in" class="secondary">Sign in with a passkey</button>
</div>
${ssoStartSection()}
</div>
${secondFactorSection()}
${links(input.next, [
  ["/auth/password/reset", "Forgot your password?"],
  ["/auth/magic-link", "Sign in with an e-mailed link"],
  ["/auth/sign-up", "Create an account"],
  ["/auth/account/restore", "Keep my account (cancel its deletion)"],
])}
</div>`;
}

export function signUpBody(input: { next: string }): Html {
  return html`<div id="flow" data-next="${input.next}">
${NOSCRIPT}
<form id="sign-up-form" method="post">
${field({ name: "email", label: "E-mail", type: "email", autocomplete: "email" })}
${field({
  name: "password",
  label: "Password",
  type: "password",
  autocomplete: "new-password",
  hint: "At least 12 characters, not one that appeared in a data breach.",
})}
<button type="submit">Create account</button>
</form>
${links(input.next, [["/auth/sign-in", "Already have an account? Sign in"]])}
</div>`;
}

/**
 * Development only (`DEV_OUTBOX=true`, which a deploy never sets): no e-mail leaves the machine, the codes
 * are read from the dev outbox, so the page says where.
 */
function devOutboxNote(email: string): Html {
  const path = `/api/v1/auth/__dev/outbox?to=${encodeURIComponent(email || "you@example.com")}`;
  return html`<p class="hint" id="dev-outbox">Development: no e-mail is sent. The code is in the dev outbox: <code>GET ${path}</code>.</p>`;
}

export function confirmBody(input: { next: string; email: string; devOutbox: boolean }): Html {
  return html`<div id="flow" data-next="${input.next}">
${NOSCRIPT}
<p>We e-mailed a 6-digit code to confirm the address. It stays valid for 24 hours.</p>
${input.devOutbox ? devOutboxNote(input.email) : ""}
<form id="confirm-form" method="post">
${field({ name: "email", label: "E-mail", type: "email", autocomplete: "email", value: input.email })}
${field({
  name: "code",
  label: "Code from the e-mail",
  autocomplete: "one-time-code",
  inputmode: "numeric",
  pattern: "[0-9]{6}",
  maxlength: 6,
})}
<button type="submit">Confirm</button>
</form>
${links(input.next, [["/auth/sign-in", "Sign in"]])}
</div>`;
}

/** The six-digit code of a mailed link, for a reader who types it instead of opening the link. */
function mailedCodeField(): Html {
  return field({
    name: "code",
    label: "Code from the e-mail",
    hint: "Or open the link in the e-mail.",
    autocomplete: "one-time-code",
    inputmode: "numeric",
    pattern: "[0-9]{6}",
    maxlength: 6,
  });
}

export function magicLinkBody(input: { next: string; email: string; fromLink: boolean }): Html {
  const request = html`<form id="request-form" method="post">
${field({ name: "email", label: "E-mail", type: "email", autocomplete: "email", value: input.email })}
<button type="submit">E-mail me a sign-in link</button>
</form>
<form id="code-form" method="post" hidden>
${mailedCodeField()}
<button type="submit">Sign in</button>
</form>`;
  const link = html`<form id="link-form" method="post">
<p>Sign in as <strong>${input.email}</strong> with the link from your e-mail.</p>
<button type="submit">Sign in</button>
</form>`;
  return html`<div id="flow" data-next="${input.next}">
${NOSCRIPT}
${input.fromLink ? link : request}
${secondFactorSection()}
${links(input.next, [
  ["/auth/sign-in", "Sign in with a password"],
  ...(input.fromLink ? ([["/auth/magic-link", "Ask for a new link"]] as [string, string][]) : []),
])}
</div>`;
}

export function passwordResetBody(input: { next: string; email: string; fromLink: boolean }): Html {
  const newPassword = field({
    name: "new_password",
    label: "New password",
    type: "password",
    autocomplete: "new-password",
    hint: "At least 12 characters, not one that appeared in a data breach. Every session of the account is signed out.",
  });
  const request = html`<form id="request-form" method="post">
${field({ name: "email", label: "E-mail", type: "email", autocomplete: "email", value: input.email })}
<button type="submit">E-mail me a reset code</button>
</form>
<form id="reset-form" method="post" hidden>
${mailedCodeField()}
${newPassword}
<button type="submit">Set new password</button>
</form>`;
  const link = html`<form id="reset-form" method="post">
<p>Choose a new password for <strong>${input.email}</strong>.</p>
${newPassword}
<button type="submit">Set new password</button>
</form>`;
  return html`<div id="flow" data-next="${input.next}">
${NOSCRIPT}
${input.fromLink ? link : request}
${links(input.next, [["/auth/sign-in", "Back to sign in"]])}
</div>`;
}

/** The "this was not me" page of an owner notice: for an added address, or a factor or recovery pool. */
export function disownBody(what: "address" | "factor" = "address"): Html {
  const text =
    what === "address"
      ? "Someone added an address to your account. If it was not you, remove it: every session of the account is signed out, so whoever added it is thrown out too. Then sign in again and change your password."
      : "A sign-in factor was added to your account, or new recovery codes were generated. If it was not you, undo it: the factor is removed, the recovery codes generated with it or since stop working, and every session of the account is signed out, so whoever added it is thrown out too. Then sign in again and change your password.";
  const button =
    what === "address" ? "Remove the address and sign out everywhere" : "Undo it and sign out everywhere";
  return html`<div id="flow">
${NOSCRIPT}
<p>${text}</p>
<form id="disown-form" method="post">
<button type="submit">${button}</button>
</form>
<div id="disown-done" hidden>${links("/auth/account", [["/auth/sign-in", "Sign in"]])}</div>
</div>`;
}

export function invitationBody(input: { next: string }): Html {
  return html`<div id="flow" data-next="${input.next}">
${NOSCRIPT}
<p>You were invited to join an organization or a site.</p>
<form id="invitation-form" method="post">
${field({
  name: "password",
  label: "Choose a password",
  type: "password",
  autocomplete: "new-password",
  required: false,
  hint: "Only if you have no account yet: at least 12 characters. With an account already, leave it empty.",
})}
<button type="submit">Accept invitation</button>
</form>
<div id="invitation-done" hidden>${links(input.next, [["/auth/sign-in", "Sign in"]])}</div>
</div>`;
}
