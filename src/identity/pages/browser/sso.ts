/**
 * `sso.js`: the page the single sign-on callback lands on (`/auth/sso`). `#done`: signed in (the session
 * cookies are set), on to the account page; `#register=<token>`: a name (and, when allowed, a password)
 * creates the account; `#link=<token>`: the code e-mailed to the existing account links it. Signed in any of
 * these ways, the person goes back to the consent page of MCP agents when that page sent them to sign in
 * (its request kept in this tab's sessionStorage), else to the account page.
 */

import { A } from "./shared/flow";
import type { SignedInBody } from "./shared/globals";

const hash = new URLSearchParams(location.hash.slice(1));
history.replaceState(null, "", location.pathname);
const register = document.getElementById("sso-register") as HTMLFormElement;
const link = document.getElementById("sso-link") as HTMLFormElement;
/** The consent page of MCP agents keeps its request here when it sends the person to sign in (this tab only). */
function returnPath(): string {
  let kept: string | null = null;
  try {
    kept = sessionStorage.getItem("auth.next");
    sessionStorage.removeItem("auth.next");
  } catch {
    kept = null;
  }
  return kept && /^\/auth\/authorize\?[^\s\\]*$/.test(kept) ? kept : "/auth/account";
}

/** Signed in by the provider: on to where the sign-in started (the consent page), else the account page. */
function signedIn(body: SignedInBody | null): void {
  A.setSession(body);
  A.announce("Signed in.", "ok");
  location.assign(returnPath());
}

if (hash.has("done")) {
  location.assign(returnPath());
} else if (hash.get("register")) {
  register.hidden = false;
  A.form(register, async (data) => {
    const body: { registration_token: string | null; display_name: string | undefined; password?: string } = {
      registration_token: hash.get("register"),
      display_name: data.display_name,
    };
    if (data.password) body.password = data.password;
    const result = await A.api<SignedInBody>("POST", "/sso/register", body, { token: false });
    if (result.ok) return signedIn(result.body);
    A.announce(A.message(result), "error");
  });
} else if (hash.get("link")) {
  link.hidden = false;
  A.form(link, async (data) => {
    const result = await A.api<SignedInBody>(
      "POST",
      "/sso/link",
      { link_token: hash.get("link"), code: data.code },
      { token: false },
    );
    if (result.ok) return signedIn(result.body);
    A.announce(A.message(result), "error");
  });
} else {
  A.announce("This sign-in link is incomplete. Start again from the sign-in page.", "error");
}
