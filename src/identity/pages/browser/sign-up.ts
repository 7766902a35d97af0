/** `sign-up.js`: the account is made, then the e-mailed code confirms it (confirm.js). */
import { A, S } from "./shared/flow";

A.form(document.getElementById("sign-up-form") as HTMLFormElement | null, async (data) => {
  const result = await A.api(
    "POST",
    "/signup",
    { email: data.email, password: data.password },
    { token: false },
  );
  if (!result.ok) return A.announce(A.message(result), "error");
  location.assign(S.withNext("/auth/confirm", { email: data.email ?? "" }));
});
