/**
 * `authorize.js`: the consent page of MCP agents (pages/authorize.ts's frame). Gets the session's access token
 * from the refresh cookie (`Auth.accessToken()`); signed out, goes to sign-in with this exact path and query
 * as `next` (and keeps it for single sign-on, whose callback lands on `/auth/sso`). Signed in, opens the
 * consent (`POST /oauth/consents`) and shows it, or the error the client cannot be told; approve (with the
 * step-up prompt when the server asks for it) and deny both end at the address the server answers.
 *
 * Everything the API returns is put into the page with textContent, never as HTML.
 */
import { $, A, el, Halt, stepUpHeader, wireStepUp, withStepUp } from "./shared/account-kit";
import type { ApiResult } from "./shared/globals";

type Scope = string;

interface ConsentView {
  consent_id: string;
  csrf_token: string;
  client: { id: string; name: string; origin: string | null; kind: string; verified: boolean };
  redirect_uri: string;
  requested_scopes: Scope[];
  sites: { site_id: string; name: string; host: string; allowed_scopes: Scope[] }[];
  warnings: { code: string; message: string }[];
}

/** The scopes in words (the key scopes of src/lib/key-scopes.ts). */
const WORDS: Record<string, string> = {
  "posts:read": "Read every post and page of the site, drafts included",
  "posts:write": "Create and edit posts and pages (publishing only as far as your role allows)",
  "post_types:read": "Read the site's content types",
  "sites:read": "Read the site's name, address and languages",
  "media:read": "See the site's media library",
  "media:write": "Upload and delete media",
  "site:read": "Read the site's settings",
  "site:write": "Change the site's settings",
  "site:code": "Change settings that put code or markup on the site's pages",
  "seo:read": "Read SEO settings",
  "seo:write": "Change SEO settings",
  "analytics:read": "Read the site's analytics",
  "leads:read": "Read the leads of the site's forms (names, addresses, messages people sent)",
  export: "Export the site's content",
  import: "Import content into the site",
};

/** Where the SSO callback page picks up the request (sessionStorage: this tab only). */
const NEXT_KEY = "auth.next";
const here = location.pathname + location.search;

function toSignIn(): never {
  A.clearSession();
  try {
    sessionStorage.setItem(NEXT_KEY, here);
  } catch {
    // Storage refused (private mode): the password, passkey and link sign-ins still carry `next`.
  }
  location.replace(`/auth/sign-in?next=${encodeURIComponent(here)}`);
  throw new Halt("Opening the sign-in page.");
}

const unauthorized = (r: ApiResult) =>
  r.status === 401 && (r.body?.code === "TOKEN_EXPIRED" || r.body?.code === "UNAUTHENTICATED");

/** An API call with the session's token; an expired token refreshes once; a gone session signs in again. */
async function call<T extends object>(
  path: string,
  body: unknown,
  headers?: Record<string, string>,
): Promise<ApiResult<T>> {
  const first = (await A.accessToken()) ?? toSignIn();
  let r = await A.api<T>("POST", path, body, { token: first, headers });
  if (unauthorized(r)) {
    A.forgetToken(first);
    const again = (await A.accessToken()) ?? toSignIn();
    r = await A.api<T>("POST", path, body, { token: again, headers });
    if (unauthorized(r)) toSignIn();
  }
  return r;
}

function refuse(text: string): void {
  $("loading").hidden = true;
  $("consent").hidden = true;
  $("refused-text").textContent = text;
  $("refused").hidden = false;
  A.announce(text, "error");
}

function leave(redirect: string): void {
  A.announce("Sending you back to the agent…", "ok");
  location.assign(redirect);
}

let consent: ConsentView | null = null;

function renderScopes(): void {
  if (!consent) return;
  const list = $("scope-list");
  list.replaceChildren();
  const site = consent.sites.find((s) => s.site_id === $<HTMLSelectElement>("f-site").value);
  for (const scope of consent.requested_scopes) {
    const allowed = !!site && site.allowed_scopes.includes(scope);
    const id = `scope-${scope.replace(/[^a-z0-9]/gi, "-")}`;
    const box = el("input", { type: "checkbox", id, name: "scope", value: scope });
    box.checked = allowed && scope !== "leads:read";
    box.disabled = !allowed;
    const words = WORDS[scope] ?? scope;
    const why = allowed
      ? scope === "leads:read"
        ? "Personal data of the people who wrote to the site: never chosen for you."
        : ""
      : "Your role on this site does not allow this.";
    const label = el("label", { for: id }, [words, " ", el("code", { text: scope })]);
    const row = el("div", { className: "scope" }, [box, el("span", {}, [label])]);
    if (why) row.lastElementChild!.append(el("span", { className: "hint", text: why }));
    list.append(row);
  }
}

function render(view: ConsentView, email: string | null): void {
  consent = view;
  $("whoami").textContent = email || "your account";
  $("client-name").textContent = view.client.name;
  $("client-verified").hidden = view.client.verified;
  $("client-origin").textContent = view.client.origin || "(the agent gave none)";
  $("client-id").textContent = view.client.id;
  $("redirect-uri").textContent = view.redirect_uri;
  const warning = view.warnings.find((w) => w.code === "loopback_redirect");
  $("loopback-warning").hidden = !warning;
  $("loopback-warning").textContent = warning ? warning.message : "";
  const select = $<HTMLSelectElement>("f-site");
  select.replaceChildren(
    ...view.sites.map((s) => el("option", { value: s.site_id, text: `${s.name} (${s.host})` })),
  );
  const none = view.sites.length === 0;
  $("no-sites").hidden = !none;
  select.disabled = none;
  $<HTMLButtonElement>("approve").disabled = none;
  renderScopes();
  $("loading").hidden = true;
  $("consent").hidden = false;
  // Focus on the client's name: a screen reader starts with who is asking.
  $("consent-title").focus();
}

const PARAMS = [
  "response_type",
  "client_id",
  "redirect_uri",
  "code_challenge",
  "code_challenge_method",
  "state",
  "scope",
  "resource",
];

async function open(): Promise<void> {
  const query = A.params();
  const request: Record<string, string> = {};
  for (const name of PARAMS) {
    const value = query.get(name);
    if (value !== null) request[name] = value;
  }
  const r = await call<ConsentView & { redirect?: string }>("/oauth/consents", request);
  if (r.ok && r.body?.redirect) return leave(r.body.redirect);
  try {
    sessionStorage.removeItem(NEXT_KEY);
  } catch {
    // Nothing kept.
  }
  if (!r.ok || !r.body) return refuse(A.message(r));
  const me = await A.api<{ email: string | null }>("GET", "/me", undefined, {
    token: await A.accessToken(),
  });
  render(r.body, me.ok ? (me.body?.email ?? null) : null);
}

wireStepUp();
$("f-site").addEventListener("change", renderScopes);

A.form($<HTMLFormElement>("consent-form"), async () => {
  if (!consent) return;
  const view = consent;
  const scopes = [...document.querySelectorAll<HTMLInputElement>("input[name=scope]:checked")].map(
    (box) => box.value,
  );
  if (scopes.length === 0) return A.announce("Choose at least one thing the agent may do, or deny.", "error");
  const body = { csrf_token: view.csrf_token, site_id: $<HTMLSelectElement>("f-site").value, scopes };
  const r = await withStepUp("consent", $("approve"), "approve this agent", (code) =>
    call<{ redirect: string }>(
      `/oauth/consents/${encodeURIComponent(view.consent_id)}/approve`,
      body,
      stepUpHeader(code),
    ),
  );
  if (!r) return;
  if (r.ok && r.body?.redirect) return leave(r.body.redirect);
  A.announce(A.message(r), "error");
});

$("deny").addEventListener("click", async () => {
  if (!consent) return;
  const button = $<HTMLButtonElement>("deny");
  button.disabled = true;
  try {
    const r = await call<{ redirect: string }>(
      `/oauth/consents/${encodeURIComponent(consent.consent_id)}/deny`,
      {
        csrf_token: consent.csrf_token,
      },
    );
    if (r.ok && r.body?.redirect) return leave(r.body.redirect);
    A.announce(A.message(r), "error");
  } catch (err) {
    if (!(err instanceof Halt)) A.announce((err as Error).message, "error");
  } finally {
    button.disabled = false;
  }
});

open().catch((err) => {
  if (!(err instanceof Halt)) refuse((err as Error).message || "Something went wrong. Reload the page.");
});
