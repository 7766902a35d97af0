/**
 * `GET /__dev/mail` (development only, issue 36): the dev outbox as a mail client shows it, newest first:
 * recipient, subject, time, and each e-mail's HTML body in a sandboxed `<iframe srcdoc>` (an SMS: its
 * text). It reads identity's dev outbox route over the service binding (never identity's tables); where
 * that route is off (no `DEV_OUTBOX`, every deploy) identity answers 404 and so does this page.
 *
 * Mail carries user-chosen text and this origin holds sessions, so nothing in a mail may run here:
 * - every value is escaped in the list, and each mail's HTML goes into `srcdoc` attribute-escaped;
 * - the frames are `sandbox` without `allow-scripts` nor `allow-same-origin` (an opaque origin that
 *   cannot read this one's cookies or storage), with `allow-popups allow-popups-to-escape-sandbox` and a
 *   `<base target="_blank">` so a mail's links open in a new, normal tab;
 * - the page's CSP allows no script at all (`default-src 'none'`), only inline styles (the page's and the
 *   mails', which a srcdoc frame inherits the policy for) and frames of this origin (`about:srcdoc`).
 */
import { notFoundResponse } from "../lib/problem";

/** What identity's dev outbox lists without `to` (src/identity/probes/routes.ts). */
interface MailboxMessage {
  to: string;
  channel: string;
  purpose: string;
  subject: string;
  created_at: string;
  body?: string;
  html?: string | null;
}

export const DEV_MAIL_CSP = [
  "default-src 'none'",
  "style-src 'unsafe-inline'",
  "frame-src 'self'",
  "img-src data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Text as HTML text or a double-quoted attribute value. */
function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** The mail's HTML with its links opening in a new tab: `<base target="_blank">` first in the document. */
function framed(html: string): string {
  const base = '<base target="_blank">';
  return /<head[^>]*>/i.test(html) ? html.replace(/<head[^>]*>/i, (m) => `${m}${base}`) : `${base}${html}`;
}

function item(m: MailboxMessage): string {
  const content =
    m.channel === "email" && m.html
      ? `<iframe sandbox="allow-popups allow-popups-to-escape-sandbox" referrerpolicy="no-referrer" title="${esc(m.subject)}" srcdoc="${esc(framed(m.html))}"></iframe>`
      : `<pre>${esc(m.body ?? "")}</pre>`;
  return `<article>
<header><strong>${esc(m.subject)}</strong>
<dl><dt>To</dt><dd>${esc(m.to)}</dd><dt>Sent</dt><dd><time datetime="${esc(m.created_at)}">${esc(m.created_at)}</time></dd><dt>Kind</dt><dd>${esc(m.channel)} · ${esc(m.purpose)}</dd></dl></header>
${content}
</article>`;
}

export function devMailPage(messages: MailboxMessage[]): string {
  const list = messages.length ? messages.map(item).join("\n") : "<p>No mail yet.</p>";
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Development mailbox · Site Platform</title>
<style>
body { font: 15px/1.5 system-ui, sans-serif; max-width: 52rem; margin: 2rem auto; padding: 0 1rem; color: #1b1b1f; }
article { border: 1px solid #d0d0d7; border-radius: 6px; margin: 0 0 1.5rem; overflow: hidden; }
article header { padding: .75rem 1rem; background: #f6f6f8; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 0 .75rem; margin: .5rem 0 0; color: #555; font-size: .875rem; }
dd { margin: 0; }
iframe { display: block; width: 100%; height: 28rem; border: 0; border-top: 1px solid #d0d0d7; background: #fff; }
pre { margin: 0; padding: 1rem; white-space: pre-wrap; border-top: 1px solid #d0d0d7; }
</style>
</head>
<body>
<main>
<h1>Development mailbox</h1>
<p>What identity would have sent (the dev outbox), newest first. Only where <code>DEV_OUTBOX</code> is on; the JSON is at <code>/api/v1/auth/__dev/outbox?to=ADDRESS</code>.</p>
${list}
</main>
</body>
</html>`;
}

export const DEV_MAIL_HEADERS: Record<string, string> = {
  "content-type": "text/html; charset=utf-8",
  "content-security-policy": DEV_MAIL_CSP,
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
};

/** The page from identity's dev outbox, or 404 where identity's outbox is off. */
export async function devMail(identity: Fetcher): Promise<Response> {
  const res = await identity.fetch("https://internal/api/v1/auth/__dev/outbox");
  if (!res.ok) return notFoundResponse();
  const { messages } = (await res.json()) as { messages: MailboxMessage[] };
  return new Response(devMailPage(messages), { headers: DEV_MAIL_HEADERS });
}
