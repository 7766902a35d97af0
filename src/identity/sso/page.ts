/**
 * The hosted pages' part of single sign-on: "Continue with SSO" on the sign-in page (by e-mail domain:
 * `GET /api/v1/auth/sso/start?email=` as JSON, then the browser goes to the provider), and the page the
 * callback lands on (`/auth/sso`): `#done` goes on to the account page (its session cookies are set),
 * `#register=<token>` asks for a name and, when the organization allows one, a password, `#link=<token>`
 * for the code e-mailed to the existing account's address. Their scripts are TypeScript under
 * `pages/browser/` (`pages/browser/shared/sso-start.ts`, used by `sign-in.ts`, and `sso.ts`).
 */
import { field, type Html, html } from "../pages/layout";

export function ssoStartSection(): Html {
  return html`<form id="sso-form" method="post">
<p>Or sign in through your organization:</p>
${field({ name: "sso_email", label: "Work e-mail", type: "email", autocomplete: "username" })}
<button type="submit" class="secondary">Continue with SSO</button>
</form>`;
}

export function ssoBody(): Html {
  return html`<div id="flow" data-next="/auth/account">
<noscript><p class="status error">This page needs JavaScript to talk to the sign-in service.</p></noscript>
<form id="sso-register" method="post" hidden>
<p>Your organization vouched for you. Create your account to finish signing in.</p>
${field({ name: "display_name", label: "Your name", autocomplete: "name" })}
${field({
  name: "password",
  label: "Password (optional)",
  type: "password",
  autocomplete: "new-password",
  required: false,
  hint: "Only if you also want to sign in without your organization: at least 12 characters, not one that appeared in a data breach.",
})}
<button type="submit">Create account</button>
</form>
<form id="sso-link" method="post" hidden>
<p>An account already uses this address. We e-mailed it a code: enter it to link the account to your organization's sign-in.</p>
${field({ name: "code", label: "Code from the e-mail", autocomplete: "one-time-code", inputmode: "numeric", pattern: "[0-9]{6}", maxlength: 6 })}
<button type="submit">Link and sign in</button>
</form>
<p><a href="/auth/sign-in">Back to sign in</a></p>
</div>`;
}
