/**
 * The account page's parts for the account's whole life (issue 24 §4): "Your data" (download everything
 * the account holds: POST /account/export with the step-up) and "Delete your account" (DELETE /account
 * with the step-up, the grace period shown before and after; a last owner sees the organizations and
 * sites to hand over), and the hosted page that cancels a deletion during its grace period
 * (`/auth/account/restore`: the address, then the e-mailed code). SSO status per organization is not
 * shown: organization SSO (issue 24 §1) is not on this branch.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { DELETION_GRACE_DAYS } from "../account/deletion-store";
import type { AppEnv } from "../core/context";
import { field, html, renderPage } from "./layout";

const section = (id: string, title: string, content: ReturnType<typeof html>) =>
  html`<section id="${id}" aria-labelledby="${id}-title">
<h2 id="${id}-title" tabindex="-1">${title}</h2>
${content}
</section>`;

export const DATA_SECTION = section(
  "data",
  "Your data",
  html`<p class="hint">Download one JSON file with everything your account holds: profile, addresses, second factors and passkeys (names and dates, never secrets), sessions, memberships, invitations and security activity. It asks for a code sent to your primary address.</p>
<button type="button" class="secondary" id="data-export">Download my data</button>`,
);

export const DELETE_SECTION = section(
  "delete-account",
  "Delete your account",
  html`<p class="hint" id="delete-grace">Deleting signs you out everywhere at once. For ${String(DELETION_GRACE_DAYS)} days you can change your mind: on the sign-in page's "Keep my account" link, with a code sent to your address. After that your addresses, phone, second factors, passkeys, sessions and memberships are erased for good.</p>
<p class="hint">If you are the last owner of an organization or a site, name another owner there first.</p>
<ul id="delete-blockers" hidden></ul>
<div class="field"><input id="delete-confirm" type="checkbox"> <label for="delete-confirm">I understand that my account will be erased after ${String(DELETION_GRACE_DAYS)} days</label></div>
<button type="button" class="danger" id="delete-submit">Delete my account</button>`,
);

const RESTORE_BODY = html`<div id="flow">
<p>Your account is scheduled for deletion? Until the date we e-mailed you, a code sent to your address keeps it.</p>
<form id="restore-request" method="post">
${field({ name: "email", label: "E-mail", type: "email", autocomplete: "email" })}
<button type="submit">E-mail me a code</button>
</form>
<form id="restore-confirm" method="post" hidden>
${field({ name: "code", label: "Code from the e-mail", autocomplete: "one-time-code", inputmode: "numeric", maxlength: 16 })}
<button type="submit">Keep my account</button>
</form>
<p><a href="/auth/sign-in">Back to sign-in</a></p>
</div>
<noscript><p>This page needs JavaScript.</p></noscript>`;

export function registerAccountLifePages(app: OpenAPIHono<AppEnv>) {
  app.get("/auth/account/restore", (c) =>
    renderPage(c, { title: "Keep your account", script: "account-restore.js", body: RESTORE_BODY }),
  );
}
