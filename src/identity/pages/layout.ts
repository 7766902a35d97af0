/**
 * The frame of every hosted identity page: server-rendered HTML, one stylesheet and small scripts served by
 * this Worker (`/auth/assets/*`), and the headers that make the page safe to show: a strict Content
 * Security Policy (nothing inline, nothing from elsewhere, no framing), no referrer (magic-link and reset
 * codes travel in the URL), no caching. The scripts call the same JSON API under `/api/v1/auth/*`,
 * same-origin, so a page works on the identity host and through the gateway's `/auth/*` alike.
 */
import type { Context } from "hono";
import { html, raw } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";

export { html, raw };
export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/** The policy of every hosted page: scripts, styles and calls only from this origin; no inline code. */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join("; ");

export const PAGE_HEADERS: Record<string, string> = {
  "content-security-policy": PAGE_CSP,
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "cross-origin-opener-policy": "same-origin",
  "permissions-policy": "camera=(), microphone=(), geolocation=(), payment=()",
  "cache-control": "no-store",
};

export interface PageOptions {
  /** The document title and the page's one `<h1>`. */
  title: string;
  /** The page's own script under `/auth/assets/` (for example `sign-in.js`), loaded after `common.js`. */
  script?: string;
  body: Html;
}

/**
 * One page. The live region `#status` announces errors and progress to screen readers (`role="alert"`
 * for errors is set by the script); the skip link and the single `<main>` give keyboard users a short
 * path; `data-api` tells the scripts where the JSON API lives relative to this page.
 */
export function renderPage(c: Context, options: PageOptions) {
  const script = options.script ? html`<script src="/auth/assets/${options.script}" defer></script>` : "";
  const document = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${options.title} · Site Platform</title>
<link rel="stylesheet" href="/auth/assets/pages.css">
<script src="/auth/assets/common.js" defer></script>
${script}
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="brand"><a href="/auth/sign-in">Site Platform</a></header>
<main id="main" tabindex="-1">
<h1>${options.title}</h1>
<p id="status" class="status" aria-live="polite" tabindex="-1"></p>
${options.body}
</main>
</body>
</html>`;
  for (const [name, value] of Object.entries(PAGE_HEADERS)) c.header(name, value);
  return c.html(document);
}

/** A labelled input; `hint` is tied to it with aria-describedby. */
export function field(options: {
  name: string;
  label: string;
  type?: string;
  autocomplete?: string;
  required?: boolean;
  value?: string;
  hint?: string;
  inputmode?: string;
  pattern?: string;
  maxlength?: number;
}) {
  const id = `f-${options.name}`;
  const hintId = options.hint ? `${id}-hint` : "";
  return html`<div class="field">
<label for="${id}">${options.label}</label>
${options.hint ? html`<p class="hint" id="${hintId}">${options.hint}</p>` : ""}
<input id="${id}" name="${options.name}" type="${options.type ?? "text"}"${
    options.autocomplete ? html` autocomplete="${options.autocomplete}"` : ""
  }${options.required === false ? "" : raw(" required")}${options.value ? html` value="${options.value}"` : ""}${
    hintId ? html` aria-describedby="${hintId}"` : ""
  }${options.inputmode ? html` inputmode="${options.inputmode}"` : ""}${
    options.pattern ? html` pattern="${options.pattern}"` : ""
  }${options.maxlength ? html` maxlength="${String(options.maxlength)}"` : ""}>
</div>`;
}
