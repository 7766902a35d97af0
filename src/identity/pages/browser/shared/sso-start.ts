/** The sign-in page's "Continue with SSO": the work address's domain finds the organization's provider. */
export function wireSsoStart(): void {
  const A = window.Auth;
  A.form(document.getElementById("sso-form") as HTMLFormElement | null, async (data) => {
    const email = String(data.sso_email || "").trim();
    const result = await A.api<{ authorization_url?: string }>(
      "GET",
      `/sso/start?email=${encodeURIComponent(email)}`,
      undefined,
      { token: false },
    );
    if (result.ok && result.body?.authorization_url) return location.assign(result.body.authorization_url);
    if (result.status === 404)
      return A.announce(
        "Your organization does not sign in through single sign-on. Use your password instead.",
        "error",
      );
    A.announce(A.message(result), "error");
  });
}
