/**
 * The hosted pages' part of single sign-on: "Continue with SSO" on the sign-in page (by e-mail domain:
 * `GET /api/v1/auth/sso/start?email=` as JSON, then the browser goes to the provider), and the page the
 * callback lands on (`/auth/sso`): `#done` goes on to the account page (its session cookies are set),
 * `#register=<token>` asks for a name and, when the organization allows one, a password, `#link=<token>`
 * for the code e-mailed to the existing account's address. Plain JS after `common.js` and FLOW_JS.
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

export const SSO_START_JS = `(() => {
  const A = window.Auth;
  A.form(document.getElementById("sso-form"), async (data) => {
    const email = String(data.sso_email || "").trim();
    const result = await A.api("GET", "/sso/start?email=" + encodeURIComponent(email), undefined, { token: false });
    if (result.ok && result.body && result.body.authorization_url) return location.assign(result.body.authorization_url);
    if (result.status === 404) return A.announce("Your organization does not sign in through single sign-on. Use your password instead.", "error");
    A.announce(A.message(result), "error");
  });
})();
`;

export const SSO_PAGE_JS = `(() => {
  const A = window.Auth;
  const S = window.SignIn;
  const hash = new URLSearchParams(location.hash.slice(1));
  history.replaceState(null, "", location.pathname);
  if (hash.has("done")) return location.assign("/auth/account");
  const register = document.getElementById("sso-register");
  const link = document.getElementById("sso-link");
  if (hash.get("register")) {
    register.hidden = false;
    A.form(register, async (data) => {
      const body = { registration_token: hash.get("register"), display_name: data.display_name };
      if (data.password) body.password = data.password;
      const result = await A.api("POST", "/sso/register", body, { token: false });
      if (result.ok) return S.signedIn(result.body);
      A.announce(A.message(result), "error");
    });
  } else if (hash.get("link")) {
    link.hidden = false;
    A.form(link, async (data) => {
      const result = await A.api("POST", "/sso/link", { link_token: hash.get("link"), code: data.code }, { token: false });
      if (result.ok) return S.signedIn(result.body);
      A.announce(A.message(result), "error");
    });
  } else {
    A.announce("This sign-in link is incomplete. Start again from the sign-in page.", "error");
  }
})();
`;
