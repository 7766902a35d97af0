/** `magic-link.js`: ask for a link, then its code or the link itself signs in (a second step if the account has one). */

import { A, S } from "./shared/flow";
import type { SecondFactorStart, SignedInBody } from "./shared/globals";

const params = A.params();
const requestForm = document.getElementById("request-form") as HTMLFormElement | null;
const codeForm = document.getElementById("code-form") as HTMLFormElement | null;
const linkForm = document.getElementById("link-form") as HTMLFormElement | null;
const SENT =
  "If the address has an account, we e-mailed it a sign-in link and a code. They expire in 15 minutes.";

type Verified = SignedInBody & Partial<SecondFactorStart> & { mfa_required?: boolean };

async function verify(email: string, code: string): Promise<void> {
  const result = await A.api<Verified>(
    "POST",
    "/magic-link/verify",
    { email: email, code: code },
    { token: false },
  );
  if (result.ok && result.body?.mfa_required) {
    [requestForm, codeForm, linkForm].forEach((form) => {
      if (form) form.hidden = true;
    });
    A.announce("");
    S.startSecondFactor(result.body as SecondFactorStart, {
      restart: () => location.assign(S.withNext("/auth/magic-link", { email: email })),
    });
    return;
  }
  if (result.ok) return S.signedIn(result.body);
  if (result.body?.code === "CODE_INVALID") {
    return A.announce(
      linkForm
        ? "This link is invalid, expired or already used. Ask for a new one."
        : "That code is not right, or it expired.",
      "error",
    );
  }
  A.announce(A.message(result), "error");
}

function showCodeForm(): void {
  codeForm!.hidden = false;
  A.announce(SENT, "ok");
  codeForm!.querySelector("input")!.focus();
}

A.form(requestForm, async (data) => {
  const result = await A.api("POST", "/magic-link/request", { email: data.email }, { token: false });
  if (!result.ok) return A.announce(A.message(result), "error");
  showCodeForm();
});
A.form(codeForm, (data) =>
  verify(requestForm!.querySelector<HTMLInputElement>("input[name=email]")!.value, (data.code ?? "").trim()),
);
A.form(linkForm, () => verify(params.get("email") || "", params.get("code") || ""));
if (linkForm) linkForm.querySelector("button")!.focus();
else if (params.get("sent") === "1") showCodeForm();
