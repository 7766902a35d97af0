/**
 * `account.js`: fills the account page (account.ts's static frame) through the JSON API: the display name, e-mail addresses,
 * two-factor (TOTP, recovery codes), passkeys, password, sessions, connected agents, security events, and the sections for
 * the account's whole life (shared/account-life.ts). Helpers, session and step-up: shared/account-kit.ts.
 */
import {
  $,
  A,
  act,
  call,
  el,
  fail,
  Halt,
  MESSAGES,
  ok,
  session,
  stepUpHeader,
  when,
  wireStepUp,
  withStepUp,
} from "./shared/account-kit";
import { wireLifeSections } from "./shared/account-life";
import type { CreationOptionsJSON } from "./shared/globals";

let currentSession: string | null = null;

wireStepUp();

/* ---------- display name ---------- */

async function loadProfile(): Promise<void> {
  const r = await call<{ display_name: string | null; locale: string }>("GET", "/me");
  if (!r.ok) return fail(r);
  $<HTMLInputElement>("f-display-name").value = r.body!.display_name ?? "";
  $<HTMLSelectElement>("f-locale").value = r.body!.locale;
}

A.form($<HTMLFormElement>("profile-locale"), async (data) => {
  const r = await call<{ locale: string }>("PATCH", "/me", { locale: String(data.locale || "en") });
  if (!r.ok) return fail(r);
  $<HTMLSelectElement>("f-locale").value = r.body!.locale;
  A.announce("Your language was saved.", "ok");
});

A.form($<HTMLFormElement>("profile-name"), async (data) => {
  const name = String(data["display-name"] || "").trim();
  const r = await call<{ display_name: string | null }>("PATCH", "/me", { display_name: name });
  if (!r.ok) return fail(r);
  $<HTMLInputElement>("f-display-name").value = r.body!.display_name ?? "";
  A.announce("Your name was saved.", "ok");
});

/* ---------- e-mail addresses ---------- */

interface EmailItem {
  id: string;
  email: string;
  primary: boolean;
  verified: boolean;
  usable_from?: string | null;
}

let verifying: string | null = null;

function emailStatus(item: EmailItem): HTMLElement[] {
  const out: HTMLElement[] = [];
  if (item.primary) out.push(el("span", { className: "badge ok", text: "Primary" }));
  if (item.verified) out.push(el("span", { className: "badge ok", text: "Verified" }));
  else out.push(el("span", { className: "badge pending", text: "Pending verification" }));
  if (item.usable_from)
    out.push(
      el("span", {
        className: "device",
        text: `Signs in and recovers the account from ${when(item.usable_from)}`,
      }),
    );
  return out;
}

function emailActions(item: EmailItem): HTMLElement[] {
  const buttons: HTMLElement[] = [];
  if (!item.verified) {
    buttons.push(
      el("button", {
        type: "button",
        className: "secondary",
        "aria-label": `Enter the code for ${item.email}`,
        text: "Enter code",
        onclick: () => openVerify(item.email),
      }),
    );
  }
  if (item.verified && !item.primary) {
    const b = el("button", {
      type: "button",
      className: "secondary",
      "aria-label": `Make ${item.email} primary`,
      text: "Make primary",
    });
    b.addEventListener("click", () => act(b, () => makePrimary(item, b)));
    buttons.push(b);
  }
  if (!item.primary) {
    const b = el("button", {
      type: "button",
      className: "secondary",
      "aria-label": `Remove ${item.email}`,
      text: "Remove",
    });
    b.addEventListener("click", () => act(b, () => removeEmail(item)));
    buttons.push(b);
  } else {
    buttons.push(el("span", { className: "hint", text: "Used for sign-in and confirmation codes" }));
  }
  return buttons;
}

async function loadEmails(): Promise<void> {
  const r = await call<{ items: EmailItem[]; nudge?: string | null }>("GET", "/emails");
  if (!r.ok) return fail(r);
  const body = $<HTMLTableElement>("email-table").tBodies[0]!;
  body.replaceChildren();
  for (const item of r.body!.items) {
    body.append(
      el("tr", { "data-email": item.email }, [
        el("th", { scope: "row", text: item.email }),
        el("td", {}, emailStatus(item)),
        el("td", { className: "actions-cell" }, emailActions(item)),
      ]),
    );
    if (item.primary) $("whoami").textContent = item.email;
  }
  const nudges: Record<string, string> = {
    add_backup_email: "Add a second address, so you can still recover your account if you lose this mailbox.",
    verify_pending_email: "An address is waiting for its code: choose Enter code next to it.",
  };
  const nudge = $("email-nudge");
  const said = nudges[r.body!.nudge as string];
  nudge.textContent = said || "";
  nudge.hidden = !said;
}

function openVerify(address: string): void {
  verifying = address;
  $("email-verify-target").textContent = address;
  $("email-verify").hidden = false;
  $<HTMLInputElement>("f-email-code").value = "";
  $("f-email-code").focus();
}

function closeVerify(): void {
  verifying = null;
  $("email-verify").hidden = true;
}

A.form($<HTMLFormElement>("email-add"), async (data) => {
  const address = String(data["new-email"] || "").trim();
  const r = await call<{ email: string }>("POST", "/emails", { email: address });
  if (r.status !== 202) {
    fail(r);
    $("f-new-email").focus();
    return;
  }
  $<HTMLInputElement>("f-new-email").value = "";
  await loadEmails();
  ok(`We sent a code to ${r.body!.email}. Enter it to verify the address.`);
  openVerify(r.body!.email);
});

A.form($<HTMLFormElement>("email-verify"), async (data) => {
  const address = verifying;
  const r = await call("POST", "/emails/verify", {
    email: address,
    code: String(data["email-code"] || "").trim(),
  });
  if (!r.ok) {
    fail(r);
    if (r.status === 401 || r.status === 429) {
      $("f-email-code").focus();
      $<HTMLInputElement>("f-email-code").select();
      return;
    }
    closeVerify();
    await loadEmails();
    return;
  }
  closeVerify();
  await loadEmails();
  ok(`${address} is verified.`);
  $("f-new-email").focus();
});

$("email-verify-cancel").addEventListener("click", () => {
  closeVerify();
  $("f-new-email").focus();
});

async function makePrimary(item: EmailItem, button: HTMLButtonElement): Promise<void> {
  const r = await withStepUp("emails", button, `make ${item.email} your primary address`, (code) =>
    call("POST", `/emails/${encodeURIComponent(item.id)}/primary`, code ? { code } : undefined),
  );
  if (!r) return;
  if (!r.ok) {
    fail(r);
    await loadEmails();
    return;
  }
  await loadEmails();
  ok(`${item.email} is now your primary address.`);
  $("emails-title").focus();
}

async function removeEmail(item: EmailItem): Promise<void> {
  const r = await call("DELETE", `/emails/${encodeURIComponent(item.id)}`);
  if (r.status !== 204) {
    fail(r);
    await loadEmails();
    return;
  }
  if (verifying === item.email) closeVerify();
  await loadEmails();
  ok(`Removed ${item.email}.`);
  $("emails-title").focus();
}

/* ---------- two-factor: TOTP and recovery codes ---------- */

async function loadFactors(): Promise<void> {
  const r = await call<{ totp: { enrolled: boolean }; recovery_codes: { remaining: number } }>(
    "GET",
    "/mfa/methods",
  );
  if (!r.ok) return fail(r);
  const enrolled = r.body!.totp.enrolled;
  $("totp-state").textContent = enrolled
    ? "On: sign-in asks for a code from your authenticator app."
    : "Off: no authenticator app is set up.";
  $("totp-start").hidden = enrolled || !$("totp-enroll").hidden;
  $("totp-remove").hidden = !enrolled;
  const left = r.body!.recovery_codes.remaining;
  $("recovery-state").textContent =
    left === 0
      ? "You have no unused recovery codes."
      : `You have ${left} unused recovery code${left === 1 ? "" : "s"}.`;
}

$("totp-start").addEventListener("click", (event) =>
  act(event.currentTarget as HTMLButtonElement, async () => {
    // An account that already has a sign-in factor proves it is the owner first (428, the mailed code).
    const r = await withStepUp("two-factor", $("totp-start"), "add an authenticator app", (code) =>
      call<{ secret: string; otpauth_uri: string }>("POST", "/mfa/totp", undefined, stepUpHeader(code)),
    );
    if (r === null) return;
    if (!r.ok) {
      fail(r);
      await loadFactors();
      return;
    }
    // Grouped in blocks of 4 for typing; authenticator apps ignore the spaces.
    $("totp-secret").textContent = String(r.body!.secret).replace(/(.{4})(?=.)/g, "$1 ");
    $("totp-uri").textContent = r.body!.otpauth_uri;
    const qr = await call<{ svg?: unknown }>("GET", "/mfa/totp/qr");
    if (qr.ok && qr.body && typeof qr.body.svg === "string") {
      $<HTMLImageElement>("totp-qr").src =
        `data:image/svg+xml;charset=utf-8,${encodeURIComponent(qr.body.svg)}`;
      $("totp-qr").hidden = false;
    }
    $("totp-enroll").hidden = false;
    $("totp-start").hidden = true;
    ok("Add the secret key to your authenticator app, then enter the code it shows.");
    $("f-totp-code").focus();
  }),
);

function closeEnroll(): void {
  $("totp-enroll").hidden = true;
  $("totp-secret").textContent = "";
  $("totp-qr").hidden = true;
  $("totp-qr").removeAttribute("src");
  $("totp-uri").textContent = "";
  $<HTMLInputElement>("f-totp-code").value = "";
}

$("totp-cancel").addEventListener("click", async () => {
  closeEnroll();
  await loadFactors().catch(() => {});
  ok("Set-up cancelled. The authenticator app is not turned on.");
  $("totp-start").focus();
});

A.form($<HTMLFormElement>("totp-confirm"), async (data) => {
  const r = await call<{ recovery_codes?: string[] }>("POST", "/mfa/totp/confirm", {
    code: String(data["totp-code"] || "").trim(),
  });
  if (!r.ok) {
    fail(r);
    if (r.status === 404) {
      closeEnroll();
      await loadFactors();
      return;
    }
    $("f-totp-code").focus();
    $<HTMLInputElement>("f-totp-code").select();
    return;
  }
  closeEnroll();
  await loadFactors();
  if (r.body!.recovery_codes) {
    showRecovery(
      r.body!.recovery_codes,
      "The authenticator app is on. Save your recovery codes now: they are shown only once.",
    );
  } else {
    ok("The authenticator app is on.");
    $("two-factor-title").focus();
  }
});

$("totp-remove").addEventListener("click", (event) => {
  const button = event.currentTarget as HTMLButtonElement;
  act(button, async () => {
    const r = await withStepUp("two-factor", button, "remove the authenticator app", (code) =>
      call("DELETE", "/mfa/totp", undefined, stepUpHeader(code)),
    );
    if (!r) return;
    if (r.status !== 204) return fail(r);
    await loadFactors();
    ok("The authenticator app was removed.");
    $("two-factor-title").focus();
  });
});

function showRecovery(codes: string[], message: string): void {
  const list = $("recovery-codes");
  list.replaceChildren(...codes.map((c) => el("li", {}, [el("code", { text: c })])));
  $("recovery-shown").hidden = false;
  ok(message);
  $("recovery-title").focus();
}

$("recovery-generate").addEventListener("click", (event) => {
  const button = event.currentTarget as HTMLButtonElement;
  act(button, async () => {
    const r = await withStepUp("two-factor", button, "generate new recovery codes", (code) =>
      call<{ recovery_codes: string[] }>(
        "POST",
        "/mfa/recovery-codes/generate",
        undefined,
        stepUpHeader(code),
      ),
    );
    if (!r) return;
    if (!r.ok) return fail(r);
    await loadFactors();
    showRecovery(
      r.body!.recovery_codes,
      "New recovery codes generated; the old ones no longer work. Save these now: they are shown only once.",
    );
  });
});

$("recovery-copy").addEventListener("click", async () => {
  const text = Array.from($("recovery-codes").querySelectorAll("code"), (c) => c.textContent).join("\n");
  try {
    await navigator.clipboard.writeText(text);
    ok("Recovery codes copied.");
  } catch {
    A.announce("Copying is not allowed here: select the codes and copy them by hand.", "error");
  }
});

$("recovery-done").addEventListener("click", () => {
  $("recovery-codes").replaceChildren();
  $("recovery-shown").hidden = true;
  ok("The recovery codes are hidden. Generate new ones if you lose them.");
  $("recovery-generate").focus();
});

/* ---------- passkeys ---------- */

interface PasskeyItem {
  id: string;
  name?: string | null;
  created_at: string;
  last_used_at?: string | null;
  discoverable?: boolean | null;
}

let passkeysOn = true;

async function loadPasskeys(): Promise<void> {
  const r = await call<{ items: PasskeyItem[] }>("GET", "/mfa/passkey");
  if (r.status === 501) {
    passkeysOn = false;
    $("passkey-table").hidden = true;
    $("passkey-add").hidden = true;
    $("passkey-empty").hidden = false;
    $("passkey-empty").textContent = MESSAGES.PASSKEY_DISABLED as string;
    return;
  }
  if (!r.ok) return fail(r);
  const body = $<HTMLTableElement>("passkey-table").tBodies[0]!;
  body.replaceChildren();
  for (const item of r.body!.items) {
    const name = item.name || `Passkey added ${when(item.created_at)}`;
    const remove = el("button", {
      type: "button",
      className: "secondary",
      "aria-label": `Remove passkey ${name}`,
      text: "Remove",
    });
    remove.addEventListener("click", () => act(remove, () => removePasskey(item, name, remove)));
    body.append(
      el("tr", {}, [
        el("th", { scope: "row", text: name }),
        el("td", { text: when(item.created_at) }),
        el("td", { text: when(item.last_used_at) }),
        el("td", {
          text:
            item.discoverable === true
              ? "Yes"
              : item.discoverable === false
                ? "No (needs your password first)"
                : "Unknown",
        }),
        el("td", { className: "actions-cell" }, [remove]),
      ]),
    );
  }
  $("passkey-table").hidden = r.body!.items.length === 0;
  $("passkey-empty").hidden = r.body!.items.length !== 0;
}

function creationError(err: unknown): string {
  const e = err as { name?: string; message?: string } | null;
  const name = e?.name;
  if (name === "InvalidStateError")
    return "This device or security key already holds a passkey for your account. Nothing new was registered.";
  if (name === "NotAllowedError") return "No passkey was created: the request was cancelled or timed out.";
  if (name === "SecurityError") return "This page's address cannot create passkeys for this service.";
  return `The passkey could not be created${e?.message ? `: ${e.message}` : "."}`;
}

A.form($<HTMLFormElement>("passkey-add"), async (data) => {
  if (!passkeysOn) return A.announce(MESSAGES.PASSKEY_DISABLED as string, "error");
  if (!window.PublicKeyCredential || !navigator.credentials) {
    return A.announce("This browser does not support passkeys.", "error");
  }
  const begin = await withStepUp("passkeys", null, "add a passkey", (code) =>
    call<{ publicKey: CreationOptionsJSON }>("POST", "/mfa/passkey/register/begin", {}, stepUpHeader(code)),
  );
  if (begin === null) return;
  if (!begin.ok) return fail(begin);
  let credential: Credential | null;
  try {
    credential = await navigator.credentials.create({
      publicKey: A.passkey.creationOptions(begin.body!.publicKey),
    });
  } catch (err) {
    A.announce(creationError(err), "error");
    return;
  }
  if (!credential) return A.announce("No passkey was created.", "error");
  const name = String(data["passkey-name"] || "").trim();
  const finish = await call("POST", "/mfa/passkey/register/finish", {
    credential: A.passkey.toJSON(credential as PublicKeyCredential),
    name: name || undefined,
  });
  if (finish.status !== 201) return fail(finish);
  $<HTMLInputElement>("f-passkey-name").value = "";
  await Promise.all([loadPasskeys(), loadFactors()]);
  ok(`Passkey added${name ? `: ${name}` : ""}.`);
  $("passkeys-title").focus();
});

async function removePasskey(item: PasskeyItem, name: string, button: HTMLButtonElement): Promise<void> {
  const r = await withStepUp("passkeys", button, `remove passkey ${name}`, (code) =>
    call("DELETE", `/mfa/passkey/${encodeURIComponent(item.id)}`, undefined, stepUpHeader(code)),
  );
  if (!r) return;
  if (r.status !== 204) {
    fail(r);
    await loadPasskeys();
    return;
  }
  await Promise.all([loadPasskeys(), loadFactors()]);
  ok(`Removed passkey ${name}.`);
  $("passkeys-title").focus();
}

/* ---------- password ---------- */

A.form($<HTMLFormElement>("password-change"), async (data) => {
  const body = {
    current_password: String(data["current-password"] || ""),
    new_password: String(data["new-password"] || ""),
  };
  const submit = $("password-change").querySelector<HTMLButtonElement>("button[type=submit]");
  const attempt = (code?: string) => call("POST", "/password/change", body, stepUpHeader(code));
  const r = await withStepUp("password", submit, "change your password", attempt);
  if (!r) return;
  if (r.status !== 204) return fail(r);
  $<HTMLInputElement>("f-current-password").value = "";
  $<HTMLInputElement>("f-new-password").value = "";
  await loadSessions();
  ok("Password changed. Every other session was signed out.");
  $("password-title").focus();
});

/* ---------- sessions ---------- */

const FACTORS: Record<string, string> = {
  recovery_code: "recovery code",
  email_verify: "e-mail confirmation",
  magic_link: "e-mail link",
  password_reset: "password reset",
  password: "password",
  totp: "authenticator app",
  email: "e-mail code",
  passkey: "passkey",
  recovery: "recovery code",
  sms: "text message",
  invitation: "invitation",
};

/** "magic_link_totp" -> "e-mail link + authenticator app". */
function methodName(method: string | null | undefined): string {
  const parts: string[] = [];
  let rest = String(method || "");
  while (rest) {
    const key = Object.keys(FACTORS).find((k) => rest === k || rest.startsWith(`${k}_`));
    if (!key) {
      parts.push(rest.replace(/_/g, " "));
      break;
    }
    parts.push(FACTORS[key] as string);
    rest = rest.slice(key.length + 1);
  }
  const text = parts.join(" + ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

interface SessionItem {
  id: string;
  current?: boolean;
  created_at: string;
  auth_method?: string | null;
  ip?: string | null;
  trusted_device?: boolean;
  device?: string | null;
}

/** Sessions are named by browser and system (the API's `device`), never by the raw user agent. */
const deviceName = (s: SessionItem) => s.device || "Unknown device";

async function loadSessions(): Promise<void> {
  const r = await call<{ items: SessionItem[] }>("GET", "/sessions");
  if (!r.ok) return fail(r);
  const body = $<HTMLTableElement>("session-table").tBodies[0]!;
  body.replaceChildren();
  for (const s of r.body!.items) {
    if (s.current) currentSession = s.id;
    const device = deviceName(s);
    const label = s.current ? "This session" : `Session signed in ${when(s.created_at)}`;
    const cells = [
      el("th", { scope: "row" }, [
        el("span", { text: label }),
        s.trusted_device ? el("span", { className: "badge ok", text: "Trusted device" }) : "",
        el("span", { className: "device", text: device }),
      ]),
      el("td", { text: when(s.created_at) }),
      el("td", { text: methodName(s.auth_method) }),
      el("td", { text: s.ip || "Unknown" }),
    ];
    let action: HTMLElement;
    if (s.current) {
      action = el("span", { className: "badge ok", text: "Current" });
    } else {
      const button = el("button", {
        type: "button",
        className: "secondary",
        "aria-label": `Sign out of the session signed in ${when(s.created_at)}`,
        text: "Sign out",
      });
      button.addEventListener("click", () => act(button, () => endSession(s)));
      action = button;
    }
    cells.push(el("td", { className: "actions-cell" }, [action]));
    body.append(el("tr", s.current ? { "aria-current": "true" } : {}, cells));
  }
}

async function endSession(s: SessionItem): Promise<void> {
  const r = await call("DELETE", `/sessions/${encodeURIComponent(s.id)}`);
  if (r.status !== 204 && r.status !== 404) return fail(r);
  await loadSessions();
  ok(
    r.status === 404
      ? "That session had already ended."
      : `Signed out of the session signed in ${when(s.created_at)}.`,
  );
  $("sessions-title").focus();
}

function leave(): void {
  A.clearSession();
  location.assign("/auth/sign-in");
}

$("sessions-others").addEventListener("click", (event) => {
  const button = event.currentTarget as HTMLButtonElement;
  act(button, async () => {
    const r = await withStepUp("sessions", button, "sign out of all other sessions", (code) =>
      call("DELETE", "/sessions?keep_current=true", undefined, stepUpHeader(code)),
    );
    if (!r) return;
    if (r.status !== 204) return fail(r);
    await loadSessions();
    ok("Signed out of all other sessions. This one stays signed in.");
    $("sessions-title").focus();
  });
});

$("sessions-all").addEventListener("click", (event) => {
  const button = event.currentTarget as HTMLButtonElement;
  act(button, async () => {
    const r = await withStepUp("sessions", button, "sign out everywhere, this session included", (code) =>
      call("DELETE", "/sessions", undefined, stepUpHeader(code)),
    );
    if (!r) return;
    if (r.status !== 204) return fail(r);
    ok("Signed out everywhere. Opening the sign-in page.");
    leave();
  });
});

$("sign-out").addEventListener("click", (event) =>
  act(event.currentTarget as HTMLButtonElement, async () => {
    if (!currentSession) await loadSessions();
    const r = await call("DELETE", `/sessions/${encodeURIComponent(currentSession || "unknown")}`);
    if (r.status !== 204 && r.status !== 404) return fail(r);
    ok("Signed out. Opening the sign-in page.");
    leave();
  }),
);

/* ---------- connected agents (issue 37) ---------- */

interface AgentGrant {
  id: string;
  client_name: string;
  client_kind: string;
  site_id: string;
  /** null while the site is archived or deleted (the agent is refused meanwhile). */
  site_name: string | null;
  site_host: string | null;
  scopes: string[];
  created_at: string;
  last_used_at: string | null;
}

async function loadAgents(): Promise<void> {
  const r = await call<{ items: AgentGrant[] }>("GET", "/oauth/grants");
  if (!r.ok) return fail(r);
  const body = $<HTMLTableElement>("agent-table").tBodies[0]!;
  body.replaceChildren();
  for (const g of r.body!.items) {
    const button = el("button", {
      type: "button",
      className: "secondary",
      "aria-label": `Disconnect ${g.client_name}, connected ${when(g.created_at)}`,
      text: "Disconnect",
    });
    button.addEventListener("click", () => act(button, () => disconnectAgent(g)));
    body.append(
      el("tr", {}, [
        el("th", { scope: "row" }, [
          el("span", { text: g.client_name }),
          el("span", { className: "device", text: "Unverified: the name is the agent's own claim" }),
        ]),
        el("td", {}, [
          el("span", { text: g.site_name ?? "A site that is archived or deleted" }),
          el("span", { className: "device", text: g.site_host ?? g.site_id }),
        ]),
        el("td", { text: g.scopes.join(", ") }),
        el("td", { text: when(g.created_at) }),
        el("td", { text: g.last_used_at ? when(g.last_used_at) : "Not yet" }),
        el("td", { className: "actions-cell" }, [button]),
      ]),
    );
  }
  $("agents-empty").hidden = body.rows.length > 0;
}

async function disconnectAgent(g: AgentGrant): Promise<void> {
  const r = await call("DELETE", `/oauth/grants/${encodeURIComponent(g.id)}`);
  if (r.status !== 204 && r.status !== 404) return fail(r);
  await loadAgents();
  ok(r.status === 404 ? `${g.client_name} was already disconnected.` : `${g.client_name} was disconnected.`);
  $("agents-title").focus();
}

/* ---------- security events ---------- */

const EVENT_LABELS: Record<string, string> = {
  sign_in_succeeded: "Signed in",
  sign_in_failed: "Failed sign-in",
  sign_in_locked: "Sign-in refused: locked",
  factor_added: "Second factor added",
  factor_removed: "Second factor removed",
  recovery_codes_generated: "Recovery codes generated",
  recovery_code_used: "Recovery code used",
  address_added: "Address added",
  address_verified: "Address verified",
  address_made_primary: "Address made primary",
  address_removed: "Address removed",
  password_changed: "Password changed",
  password_reset: "Password reset",
  sessions_revoked: "Signed out of sessions",
  not_me_used: "\u201CThis was not me\u201D used",
  account_deletion_requested: "Account deletion asked for",
  account_deletion_cancelled: "Account deletion cancelled",
  "oauth_grant.created": "Agent connected",
  "oauth_grant.used": "Agent used",
  "oauth_grant.revoked": "Agent disconnected",
};
let eventCursor: string | null = null;

interface EventItem {
  type: string;
  detail?: string | null;
  created_at: string;
  method?: string | null;
  ip_prefix?: string | null;
  user_agent?: string | null;
}

function eventWhat(item: EventItem): string {
  const label = EVENT_LABELS[item.type] || item.type.replace(/_/g, " ");
  return item.type.startsWith("address_") && item.detail ? `${label}: ${item.detail}` : label;
}

async function loadEvents(more: boolean): Promise<void> {
  const query = `?limit=20${more && eventCursor ? `&cursor=${encodeURIComponent(eventCursor)}` : ""}`;
  const r = await call<{ items: EventItem[]; next_cursor: string | null }>("GET", `/events${query}`);
  if (!r.ok) return fail(r);
  const body = $<HTMLTableElement>("event-table").tBodies[0]!;
  if (!more) body.replaceChildren();
  for (const item of r.body!.items) {
    body.append(
      el("tr", {}, [
        el("th", { scope: "row", text: eventWhat(item) }),
        el("td", { text: when(item.created_at) }),
        el("td", { text: item.method ? methodName(item.method) : "" }),
        el("td", { text: item.ip_prefix || "Unknown" }),
        el("td", { text: item.user_agent || "Unknown" }),
      ]),
    );
  }
  eventCursor = r.body!.next_cursor;
  $("events-more").hidden = !eventCursor;
  $("events-empty").hidden = body.rows.length > 0;
}

$("events-more").addEventListener("click", (event) =>
  act(event.currentTarget as HTMLButtonElement, () => loadEvents(true)),
);

wireLifeSections();

/* ---------- start ---------- */

async function load(fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (err) {
    if (!(err instanceof Halt))
      A.announce((err as Error | null)?.message || "Something went wrong. Reload the page.", "error");
  }
}

async function start(): Promise<void> {
  try {
    await session();
  } catch (err) {
    if (!(err instanceof Halt)) {
      $("loading").textContent = "";
      A.announce(
        (err as Error | null)?.message || "We could not load your account. Reload the page.",
        "error",
      );
    }
    return;
  }
  await Promise.all([
    load(loadProfile),
    load(loadEmails),
    load(loadFactors),
    load(loadPasskeys),
    load(loadSessions),
    load(loadAgents),
    load(() => loadEvents(false)),
  ]);
  $("loading").hidden = true;
  $("account").hidden = false;
}

start();
