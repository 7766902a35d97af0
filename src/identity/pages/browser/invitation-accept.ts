/** `invitation-accept.js`: accepts the invitation in the link (a new account sets its password here). */

import { A, S } from "./shared/flow";
import type { SignedInBody } from "./shared/globals";

const token = A.params().get("token") || "";
const form = document.getElementById("invitation-form") as HTMLFormElement;
A.form(form, async (data) => {
  const body: { token: string; password?: string } = { token: token };
  if (data.password) body.password = data.password;
  const result = await A.api<SignedInBody>("POST", "/invitations/accept", body, { token: false });
  if (result.ok && result.body?.access_token) return S.signedIn(result.body);
  if (result.ok) {
    form.hidden = true;
    document.getElementById("invitation-done")!.hidden = false;
    A.announce("Invitation accepted. Sign in to continue.", "ok");
    return;
  }
  if (result.status === 404)
    return A.announce(
      "This invitation is unknown, already used, revoked or expired. Ask for a new one.",
      "error",
    );
  A.announce(A.message(result), "error");
});
