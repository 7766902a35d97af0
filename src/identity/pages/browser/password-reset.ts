/** `password-reset.js`: ask for a reset (then its code), or the e-mailed link's form, sets a new password. */
import { A, S } from "./shared/flow";

const params = A.params();
const requestForm = document.getElementById("request-form") as HTMLFormElement | null;
const resetForm = document.getElementById("reset-form") as HTMLFormElement;

A.form(requestForm, async (data) => {
  const result = await A.api("POST", "/password/reset/request", { email: data.email }, { token: false });
  if (!result.ok) return A.announce(A.message(result), "error");
  resetForm.hidden = false;
  A.announce(
    "If the address has an account, we e-mailed it a reset link and a code. They expire in 30 minutes.",
    "ok",
  );
  resetForm.querySelector("input")!.focus();
});

A.form(resetForm, async (data) => {
  const email = requestForm
    ? requestForm.querySelector<HTMLInputElement>("input[name=email]")!.value
    : params.get("email") || "";
  const code = requestForm ? (data.code ?? "").trim() : params.get("code") || "";
  const result = await A.api(
    "POST",
    "/password/reset/confirm",
    { email: email, code: code, new_password: data.new_password },
    { token: false },
  );
  if (result.ok) {
    A.clearSession();
    location.assign(S.withNext("/auth/sign-in", { email: email, reset: "1" }));
    return;
  }
  if (result.body?.code === "CODE_INVALID") {
    return A.announce(
      requestForm
        ? "That code is not right, or it expired."
        : "This link is invalid, expired or already used. Ask for a new one.",
      "error",
    );
  }
  A.announce(A.message(result), "error");
});
if (!requestForm) resetForm.querySelector("input")!.focus();
