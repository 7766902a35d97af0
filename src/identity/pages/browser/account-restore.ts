/** `account-restore.js`: cancels an account's deletion during its grace period (the address, then the e-mailed code). */
const A = window.Auth;
let email = "";
A.form(document.getElementById("restore-request") as HTMLFormElement | null, async (data) => {
  email = String(data.email || "").trim();
  const r = await A.api("POST", "/account/deletion/cancel", { email }, { token: false });
  if (r.status !== 202) return A.announce(A.message(r), "error");
  document.getElementById("restore-request")!.hidden = true;
  document.getElementById("restore-confirm")!.hidden = false;
  A.announce("If this address belongs to an account scheduled for deletion, we sent it a code.", "ok");
  document.getElementById("f-code")!.focus();
});
A.form(document.getElementById("restore-confirm") as HTMLFormElement | null, async (data) => {
  const r = await A.api(
    "POST",
    "/account/deletion/cancel",
    { email, code: String(data.code || "").trim() },
    { token: false },
  );
  if (r.status !== 200)
    return A.announce(
      r.body?.code === "CODE_INVALID"
        ? "The code is not valid. Check the e-mail, or ask for a new code."
        : A.message(r),
      "error",
    );
  document.getElementById("restore-confirm")!.hidden = true;
  A.announce("Your account will not be deleted. Sign in to use it.", "ok");
});
