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
import type { PageAsset } from "./assets";
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

/** The account script's part for these sections (inserted into account.js; uses its helpers). */
export const LIFE_JS = `
  /* ---------- your data ---------- */

  $("data-export").addEventListener("click", (event) => {
    const button = event.currentTarget;
    act(button, async () => {
      const r = await withStepUp("data", button, "download your data", (code) =>
        call("POST", "/account/export", undefined, stepUpHeader(code)),
      );
      if (!r) return;
      if (r.status !== 200) return fail(r);
      const blob = new Blob([JSON.stringify(r.body, null, 2)], { type: "application/json" });
      const link = el("a", { href: URL.createObjectURL(blob), download: "account-export.json", text: "account-export.json" });
      link.hidden = true;
      document.body.append(link);
      link.click();
      setTimeout(() => { URL.revokeObjectURL(link.href); link.remove(); }, 1000);
      ok("Your data was downloaded as account-export.json.");
    });
  });

  /* ---------- delete the account ---------- */

  function showBlockers(r) {
    const list = $("delete-blockers");
    const details = (r.body && r.body.details) || {};
    list.replaceChildren();
    for (const o of details.orgs || []) list.append(el("li", { text: "Organization: " + o.name }));
    for (const s of details.sites || []) list.append(el("li", { text: "Site: " + (s.name || s.id) }));
    list.hidden = list.children.length === 0;
  }

  $("delete-submit").addEventListener("click", (event) => {
    const button = event.currentTarget;
    if (!$("delete-confirm").checked) {
      A.announce("Tick the box to confirm that you understand, then delete.", "error");
      $("delete-confirm").focus();
      return;
    }
    act(button, async () => {
      const r = await withStepUp("delete-account", button, "delete your account", (code) =>
        call("DELETE", "/account", undefined, stepUpHeader(code)),
      );
      if (!r) return;
      if (r.status === 409) {
        showBlockers(r);
        A.announce("You are the last owner of what is listed below: name another owner there first. Nothing was deleted.", "error");
        return;
      }
      if (r.status !== 202) return fail(r);
      A.clearSession();
      ok("Your account will be erased after " + when(r.body.erase_after) + ". Every session was signed out. To keep it, use \\u201CKeep my account\\u201D on the sign-in page before then.");
      $("account").hidden = true;
    });
  });
`;

/** Sessions are named by browser and system (the API's `device`), never by the raw user agent. */
export const DEVICE_NAME_JS = `s.device || "Unknown device"`;

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

const RESTORE_JS = `"use strict";
(() => {
  const A = window.Auth;
  let email = "";
  A.form(document.getElementById("restore-request"), async (data) => {
    email = String(data.email || "").trim();
    const r = await A.api("POST", "/account/deletion/cancel", { email }, { token: false });
    if (r.status !== 202) return A.announce(A.message(r), "error");
    document.getElementById("restore-request").hidden = true;
    document.getElementById("restore-confirm").hidden = false;
    A.announce("If this address belongs to an account scheduled for deletion, we sent it a code.", "ok");
    document.getElementById("f-code").focus();
  });
  A.form(document.getElementById("restore-confirm"), async (data) => {
    const r = await A.api("POST", "/account/deletion/cancel", { email, code: String(data.code || "").trim() }, { token: false });
    if (r.status !== 200) return A.announce(r.body && r.body.code === "CODE_INVALID" ? "The code is not valid. Check the e-mail, or ask for a new code." : A.message(r), "error");
    document.getElementById("restore-confirm").hidden = true;
    A.announce("Your account will not be deleted. Sign in to use it.", "ok");
  });
})();
`;

export const LIFE_ASSETS: Record<string, PageAsset> = {
  "account-restore.js": { type: "text/javascript", body: RESTORE_JS },
};

export function registerAccountLifePages(app: OpenAPIHono<AppEnv>) {
  app.get("/auth/account/restore", (c) =>
    renderPage(c, { title: "Keep your account", script: "account-restore.js", body: RESTORE_BODY }),
  );
}
