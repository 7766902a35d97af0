/**
 * The authorization endpoint of MCP agents (issue 37, docs/decisions/oauth-agents.md "Consent"):
 * `GET /auth/authorize?response_type=code&client_id&redirect_uri&code_challenge&code_challenge_method&state
 * &scope&resource`, a hosted page like the sign-in pages (layout.ts: strict CSP with `frame-ancestors
 * 'none'`, `X-Frame-Options: DENY`, no referrer, since the URL carries the state, and no caching).
 *
 * The HTML is a static frame; `authorize.js` (browser/authorize.ts) gets the session's access token from the
 * refresh cookie (as the account page does), sends a signed-out visitor to `/auth/sign-in?next=<this path
 * and query>`, and otherwise hands the request's parameters to `POST /api/v1/auth/oauth/consents` and shows
 * what it answers: the client (unverified), its origin, the exact redirect URI, the loopback warning, a site
 * picker and the scopes in words; or the error the client cannot be told, on the page.
 *
 * `next` is bounded to 2048 characters (sign-in-next.ts). A real request of an MCP client is some 400 to
 * 900 characters (a client_id URL, a loopback or https redirect URI, a 43-character challenge and state,
 * a handful of scopes, the resource); one longer than 2048 could not come back here after sign-in, so the
 * page says so at once instead of losing it on the way (the state alone may be 500 characters).
 *
 * `/auth/authorize/undo?token=` is the page of the notice's link: one button (a mail scanner fetching the
 * link changes nothing) that calls `POST /api/v1/auth/oauth/undo`.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../core/context";
import { html, renderPage } from "./layout";

/** The longest path and query the sign-in page carries back as `next` (sign-in-next.ts). */
export const MAX_AUTHORIZE_URL = 2048;

const CONSENT_CSS = `
.badge { display: inline-block; padding: 0 .45rem; border-radius: .3rem; border: 1px solid var(--err); color: var(--err); font-size: .85rem; margin-left: .5rem; vertical-align: middle; }
dl.client dt { font-weight: 600; margin-top: .5rem; }
dl.client dd { margin: 0; overflow-wrap: anywhere; }
dl.client code { overflow-wrap: anywhere; word-break: break-all; }
.warning { color: var(--err); font-weight: 600; }
.notice { margin: 1rem 0; padding: 1rem; border: 1px solid var(--accent); border-radius: .4rem; }
fieldset { border: 1px solid var(--line); border-radius: .4rem; margin: 1rem 0; padding: .75rem 1rem; }
legend { font-weight: 600; padding: 0 .25rem; }
select { font: inherit; padding: .5rem; border: 1px solid var(--line); border-radius: .4rem; background: transparent; color: inherit; max-width: 100%; }
.scope { display: flex; gap: .5rem; align-items: flex-start; margin: .4rem 0; }
.scope .hint { display: block; }
.scope code { font-size: .85rem; color: var(--muted); }
#consent-title:focus { outline: none; }
`;

export const AUTHORIZE_ASSETS = {
  "authorize.css": { type: "text/css" as const, body: CONSENT_CSS },
};

const STEP_UP = html`<form id="stepup" class="notice" hidden aria-labelledby="stepup-title">
<h3 id="stepup-title">Confirm it's you</h3>
<p class="hint" id="stepup-hint">To <span id="stepup-what"></span>, enter the code we sent to <strong id="stepup-sent"></strong>.</p>
<div class="field">
<label for="f-stepup-code">Confirmation code</label>
<input id="f-stepup-code" name="stepup-code" type="text" autocomplete="one-time-code" inputmode="numeric" maxlength="16" required>
</div>
<div class="actions"><button type="submit">Confirm</button><button type="button" class="secondary" id="stepup-cancel">Cancel</button></div>
</form>`;

const BODY = html`<link rel="stylesheet" href="/auth/assets/authorize.css">
<p id="loading">Checking the request…</p>
<div id="refused" hidden>
<p id="refused-text"></p>
<p class="hint">Nothing was sent to the agent. Close this page and check the agent's settings, or ask its maker.</p>
</div>
<section id="consent" hidden aria-labelledby="client-name">
<p class="hint">Signed in as <strong id="whoami"></strong>.</p>
<h2 id="consent-title" tabindex="-1"><span id="client-name"></span><span class="badge" id="client-verified">Unverified</span></h2>
<p class="hint">No agent is verified yet: its name and address below are what the agent says about itself. Approve only an agent you just started connecting yourself.</p>
<dl class="client">
<dt>Its address (origin)</dt><dd id="client-origin"></dd>
<dt>Client ID</dt><dd><code id="client-id"></code></dd>
<dt>Sends you back to</dt><dd><code id="redirect-uri"></code></dd>
</dl>
<p class="warning" id="loopback-warning" hidden></p>
<form id="consent-form">
<div class="field">
<label for="f-site">Site the agent may act on</label>
<p class="hint" id="f-site-hint">The agent acts as you on this one site, never beyond what your role there allows.</p>
<select id="f-site" name="site" aria-describedby="f-site-hint"></select>
</div>
<p id="no-sites" class="warning" hidden>You have no site where your role lets an agent do anything, so there is nothing to approve.</p>
<fieldset id="scopes">
<legend>What the agent may do</legend>
<div id="scope-list"></div>
</fieldset>
<div class="actions"><button type="submit" id="approve">Approve</button><button type="button" class="secondary" id="deny">Deny</button></div>
</form>
</section>
${STEP_UP}
<noscript><p>This page needs JavaScript.</p></noscript>`;

const TOO_LONG = html`<p>This connection request is too long to carry through sign-in (over ${String(MAX_AUTHORIZE_URL)} characters). Nothing was sent to the agent; ask its maker to send a shorter request (a shorter state).</p>`;

const UNDO_BODY = html`<div id="flow">
<p>An AI agent was connected to your account. If it was not you, revoke it: the agent loses access at once and every session of the account is signed out, so whoever approved it is thrown out too. Then sign in again and change your password.</p>
<form id="disown-form" method="post">
<button type="submit">Revoke the agent and sign out everywhere</button>
</form>
<div id="disown-done" hidden><p class="links"><a href="/auth/sign-in">Sign in</a></p></div>
</div>
<noscript><p>This page needs JavaScript.</p></noscript>`;

export function registerAuthorizePages(app: OpenAPIHono<AppEnv>) {
  app.get("/auth/authorize", (c) => {
    const url = new URL(c.req.url);
    if (url.pathname.length + url.search.length > MAX_AUTHORIZE_URL) {
      c.status(400);
      return renderPage(c, { title: "Connect an AI agent", body: TOO_LONG });
    }
    return renderPage(c, { title: "Connect an AI agent", script: "authorize.js", body: BODY });
  });
  app.get("/auth/authorize/undo", (c) =>
    renderPage(c, { title: "Revoke an AI agent", script: "authorize-undo.js", body: UNDO_BODY }),
  );
}
