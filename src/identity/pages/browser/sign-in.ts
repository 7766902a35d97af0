/** `sign-in.js`: the password sign-in (then the second step), passkey-first, and the e-mailed link. */

import { A, S } from "./shared/flow";
import type { RequestOptionsJSON, SecondFactorStart, SignedInBody } from "./shared/globals";
import { wireSsoStart } from "./shared/sso-start";

const firstStep = document.getElementById("first-step") as HTMLElement;
const form = document.getElementById("password-form") as HTMLFormElement;
const noFactor = document.getElementById("no-factor") as HTMLElement;
const email = form.querySelector("input[name=email]") as HTMLInputElement;
const password = form.querySelector("input[name=password]") as HTMLInputElement;

// The first step (password, passkey-first, single sign-on) hides as a whole while the second step shows.
function restart(): void {
  firstStep.hidden = false;
  noFactor.hidden = true;
  password.value = "";
}

A.form(form, async (data) => {
  noFactor.hidden = true;
  const result = await A.api<SecondFactorStart>(
    "POST",
    "/login/start",
    { email: data.email, password: data.password },
    { token: false },
  );
  if (result.ok) {
    firstStep.hidden = true;
    A.announce("");
    S.startSecondFactor(result.body!, { restart: restart });
    return;
  }
  const code = result.body?.code;
  if (code === "MFA_NOT_ENROLLED") {
    noFactor.hidden = false;
    A.announce("Your password is right, but this account has no second factor yet.", "ok");
    document.getElementById("send-link")!.focus();
    return;
  }
  if (code === "INVALID_CREDENTIALS") return A.announce("Wrong e-mail or password.", "error");
  if (code === "EMAIL_NOT_VERIFIED")
    return A.announce("Confirm your e-mail address first with the code we e-mailed at sign-up.", "error");
  A.announce(A.message(result), "error");
});

const passkeyFirst = document.getElementById("passkey-first") as HTMLElement;
const passkeyButton = document.getElementById("passkey-sign-in") as HTMLButtonElement;
if (!window.PublicKeyCredential || !navigator.credentials) passkeyFirst.hidden = true;

// Passkey-first: no e-mail, no password; the browser offers the passkeys it holds for this service.
async function passkeySignIn(): Promise<void> {
  const options = await A.api<{ publicKey: RequestOptionsJSON }>(
    "POST",
    "/login/passkey/begin",
    {},
    { token: false },
  );
  if (!options.ok) return A.announce(A.message(options), "error");
  let credential: Credential | null = null;
  try {
    credential = await navigator.credentials.get({
      publicKey: A.passkey.requestOptions(options.body!.publicKey),
    });
  } catch {
    credential = null;
  }
  if (!credential)
    return A.announce(
      "No passkey was used (cancelled or timed out). Try again or sign in with your password.",
      "error",
    );
  const result = await A.api<SignedInBody>(
    "POST",
    "/login/passkey/finish",
    { credential: A.passkey.toJSON(credential as PublicKeyCredential) },
    { token: false },
  );
  if (result.ok) return S.signedIn(result.body, "");
  const code = result.body?.code;
  if (code === "PASSKEY_INVALID")
    return A.announce(
      "That passkey could not sign you in. It may have been removed from your account, or it only works after your password.",
      "error",
    );
  if (code === "EMAIL_NOT_VERIFIED")
    return A.announce("Confirm your e-mail address first with the code we e-mailed at sign-up.", "error");
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

document.getElementById("send-link")!.addEventListener("click", async () => {
  const result = await A.api("POST", "/magic-link/request", { email: email.value }, { token: false });
  if (!result.ok) return A.announce(A.message(result), "error");
  location.assign(S.withNext("/auth/magic-link", { email: email.value, sent: "1" }));
});

wireSsoStart();
