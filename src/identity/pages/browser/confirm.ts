/** `confirm.js`: the sign-up's e-mailed code signs the new account in. */

import { A, S } from "./shared/flow";
import type { SignedInBody } from "./shared/globals";

const form = document.getElementById("confirm-form") as HTMLFormElement;
A.form(form, async (data) => {
  const result = await A.api<SignedInBody>(
    "POST",
    "/email/verify/confirm",
    { email: data.email, code: (data.code ?? "").trim() },
    { token: false },
  );
  if (result.ok) return S.signedIn(result.body);
  if (result.body?.code === "CODE_INVALID")
    return A.announce("That code is not right, or it expired.", "error");
  A.announce(A.message(result), "error");
});
const email = form.querySelector("input[name=email]") as HTMLInputElement;
(email.value ? (form.querySelector("input[name=code]") as HTMLInputElement) : email).focus();
