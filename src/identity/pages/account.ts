/**
 * The account page: the display name (the byline of the person's posts, issue 34), e-mail addresses (primary, removal), TOTP enrollment and removal, passkeys,
 * recovery codes, sessions (sign out of one or all), connected MCP agents (issue 37: each grant with its
 * client, site, scopes, times and a disconnect), with step-up prompts where the spec asks for them,
 * and the account's recent security events (GET /api/v1/auth/events); its data and its deletion
 * (account-life.ts, issue 24).
 *
 * The HTML is a static frame; `account.js` (browser/account.ts) fills it through the JSON API under
 * `/api/v1/auth` with the session's access token, obtained by one rotation of the HttpOnly `svc_refresh`
 * cookie per page load and kept in memory only. Nothing personal is rendered by the server, so the page
 * needs no session on the server side and is the same document for everyone.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../core/context";
import { ACCOUNT_CSS } from "./account-assets";
import { DATA_SECTION, DELETE_SECTION } from "./account-life";
import type { PageAsset } from "./assets";
import { field, html, renderPage } from "./layout";

export const ACCOUNT_ASSETS: Record<string, PageAsset> = {
  "account.css": { type: "text/css", body: ACCOUNT_CSS },
};

/** A section with its heading (the target of focus after a change that empties part of it). */
function section(id: string, title: string, content: ReturnType<typeof html>) {
  return html`<section id="${id}" aria-labelledby="${id}-title">
<h2 id="${id}-title" tabindex="-1">${title}</h2>
${content}
</section>`;
}

/** A table whose rows the script fills; the caption names it for screen readers. */
function table(id: string, caption: string, headings: string[]) {
  return html`<table id="${id}">
<caption class="visually-hidden">${caption}</caption>
<thead><tr>${headings.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
<tbody></tbody>
</table>`;
}

const codeField = (name: string, label: string, hint?: string) =>
  field({
    name,
    label,
    autocomplete: "one-time-code",
    inputmode: "numeric",
    maxlength: 16,
    ...(hint ? { hint } : {}),
  });

const PROFILE = section(
  "profile",
  "Your name",
  html`<form id="profile-name">
${field({ name: "display-name", label: "Display name", autocomplete: "name", maxlength: 120, hint: "The name your posts are bylined with on the sites you write for. Never your e-mail address." })}
<button type="submit">Save name</button>
</form>
<form id="profile-locale">
<div class="field">
<label for="f-locale">Language of your e-mails</label>
<p class="hint" id="f-locale-hint">The codes, links and notices we send you are written in this language.</p>
<select id="f-locale" name="locale" aria-describedby="f-locale-hint">
<option value="en">English</option>
<option value="pt-BR" lang="pt-BR">Português (Brasil)</option>
</select>
</div>
<button type="submit">Save language</button>
</form>`,
);

const EMAILS = section(
  "emails",
  "E-mail addresses",
  html`<p class="hint" id="email-nudge" hidden></p>
${table("email-table", "Your e-mail addresses", ["Address", "Status", "Actions"])}
<form id="email-add">
${field({ name: "new-email", label: "Add an e-mail address", type: "email", autocomplete: "email", hint: "We send a code to the new address to prove it is yours." })}
<button type="submit">Add address</button>
</form>
<form id="email-verify" hidden>
<p class="hint" id="email-verify-hint">Enter the code we sent to <strong id="email-verify-target"></strong>.</p>
${codeField("email-code", "Code from the e-mail")}
<div class="actions"><button type="submit">Verify address</button><button type="button" class="secondary" id="email-verify-cancel">Not now</button></div>
</form>`,
);

const TWO_FACTOR = section(
  "two-factor",
  "Two-factor authentication",
  html`<h3>Authenticator app</h3>
<p id="totp-state">Checking…</p>
<div class="actions">
<button type="button" id="totp-start" hidden>Set up an authenticator app</button>
<button type="button" class="secondary" id="totp-remove" hidden>Remove the authenticator app</button>
</div>
<div id="totp-enroll" hidden>
<h4 id="totp-enroll-title" tabindex="-1">Add this account to your authenticator app</h4>
<p>Enter the secret key in your app (or open the setup link on a device that has it), then type the 6-digit code the app shows. Or scan the QR code with the app.</p>
<dl class="secret">
<dt>QR code (scan it with the app)</dt><dd><img id="totp-qr" alt="QR code of the setup link" width="200" height="200" hidden></dd>
<dt>Secret key (to type instead)</dt><dd><code id="totp-secret"></code></dd>
<dt>Setup link (otpauth URI)</dt><dd><code id="totp-uri"></code></dd>
</dl>
<form id="totp-confirm">
${codeField("totp-code", "Code from the authenticator app")}
<div class="actions"><button type="submit">Turn on</button><button type="button" class="secondary" id="totp-cancel">Cancel</button></div>
</form>
</div>
<h3>Recovery codes</h3>
<p id="recovery-state">Checking…</p>
<button type="button" class="secondary" id="recovery-generate">Generate new recovery codes</button>
<div id="recovery-shown" class="notice" hidden>
<h4 id="recovery-title" tabindex="-1">Your recovery codes</h4>
<p class="warning"><strong>Save these codes now: they are shown only this once.</strong> Each code signs you in once if you lose your second factor. Any earlier codes no longer work.</p>
<ul class="codes" id="recovery-codes" aria-labelledby="recovery-title"></ul>
<div class="actions"><button type="button" class="secondary" id="recovery-copy">Copy the codes</button><button type="button" id="recovery-done">I have saved them</button></div>
</div>`,
);

const PASSKEYS = section(
  "passkeys",
  "Passkeys",
  html`<p class="hint">A passkey signs you in with this device's screen lock or a security key, instead of a code.</p>
<p class="hint">A passkey that "signs in alone" also works without your password, from the sign-in page's "Sign in with a passkey" button.</p>
<p id="passkey-empty" hidden>No passkeys yet.</p>
${table("passkey-table", "Your passkeys", ["Name", "Added", "Last used", "Signs in alone", "Actions"])}
<form id="passkey-add">
${field({ name: "passkey-name", label: "Name for the new passkey (optional)", required: false, maxlength: 64, hint: "For example: work laptop." })}
<button type="submit">Add a passkey</button>
</form>`,
);

const PASSWORD = section(
  "password",
  "Password",
  html`<p class="hint">Changing the password asks for a code sent to your primary address and signs out every other session.</p>
<form id="password-change">
${field({ name: "current-password", label: "Current password", type: "password", autocomplete: "current-password" })}
${field({ name: "new-password", label: "New password", type: "password", autocomplete: "new-password", hint: "At least 12 characters, not one that appeared in a data breach." })}
<button type="submit">Change password</button>
</form>`,
);

const SESSIONS = section(
  "sessions",
  "Sessions",
  html`<p class="hint">Where your account is signed in. Signing out of all sessions asks for a code sent to your primary address.</p>
${table("session-table", "Your sessions", ["Device", "Signed in", "Method", "Address", "Actions"])}
<div class="actions">
<button type="button" class="secondary" id="sessions-others">Sign out of all other sessions</button>
<button type="button" class="secondary" id="sessions-all">Sign out everywhere</button>
</div>`,
);

const AGENTS = section(
  "agents",
  "Connected agents",
  html`<p class="hint">AI agents you allowed to act as you on one of your sites, with what you allowed. Each acts only while your role on that site still allows it; disconnecting one ends it at once.</p>
<p id="agents-empty" hidden>No agent is connected.</p>
${table("agent-table", "Your connected agents", ["Agent", "Site", "May", "Connected", "Last used", "Actions"])}`,
);

const EVENTS = section(
  "events",
  "Recent security activity",
  html`<p class="hint">Sign-ins, second factors, addresses and password changes on your account, newest first. Places are shown as a network (never your full address) and devices as browser and system.</p>
<p id="events-empty" hidden>Nothing recorded yet.</p>
${table("event-table", "Your recent security events", ["What", "When", "How", "Network", "Device"])}
<button type="button" class="secondary" id="events-more" hidden>Show older activity</button>`,
);

/** The one step-up prompt; the script moves it into the section whose action asked for it. */
const STEP_UP = html`<form id="stepup" class="notice" hidden aria-labelledby="stepup-title">
<h3 id="stepup-title">Confirm it's you</h3>
<p class="hint" id="stepup-hint">To <span id="stepup-what"></span>, enter the code we sent to <strong id="stepup-sent"></strong>.</p>
${codeField("stepup-code", "Confirmation code")}
<div class="actions"><button type="submit">Confirm</button><button type="button" class="secondary" id="stepup-cancel">Cancel</button></div>
</form>`;

const BODY = html`<link rel="stylesheet" href="/auth/assets/account.css">
<p id="loading">Loading your account…</p>
<div id="account" hidden>
<div class="whoami"><p>Signed in as <strong id="whoami"></strong></p><button type="button" class="secondary" id="sign-out">Sign out</button></div>
${PROFILE}
${EMAILS}
${TWO_FACTOR}
${PASSKEYS}
${PASSWORD}
${SESSIONS}
${AGENTS}
${EVENTS}
${DATA_SECTION}
${DELETE_SECTION}
</div>
${STEP_UP}
<noscript><p>This page needs JavaScript.</p></noscript>`;

export function registerAccountPages(app: OpenAPIHono<AppEnv>) {
  app.get("/auth/account", (c) => renderPage(c, { title: "Your account", script: "account.js", body: BODY }));
}
