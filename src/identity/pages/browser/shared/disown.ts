/** The "this was not me" pages' script: `endpoint` takes the link's token; `done` is said once it worked. */
export function disownPage(endpoint: string, done: string): void {
  const A = window.Auth;
  const token = A.params().get("token") || "";
  const form = document.getElementById("disown-form") as HTMLFormElement;
  A.form(form, async () => {
    const result = await A.api("POST", endpoint, { token: token }, { token: false });
    if (result.ok) {
      form.hidden = true;
      document.getElementById("disown-done")!.hidden = false;
      A.clearSession();
      A.announce(`${done} Sign in again and change your password.`, "ok");
      return;
    }
    if (result.body?.code === "CODE_INVALID")
      return A.announce("This link is invalid or expired (links work for 7 days).", "error");
    A.announce(A.message(result), "error");
  });
}
