/**
 * Renders a message from its kind's template in a language: the subject, the plain-text body and an HTML
 * body. Every value in the HTML is escaped (the paragraphs carry user-chosen names, site names and
 * addresses as they are), the link goes into an attribute only when it is http(s), and the HTML has no
 * script, no remote resource and no style sheet beyond inline styles.
 */
import type { Locale, MessagePurpose, OutboundMessage } from "./messages";
import type { RenderedMessage } from "./providers/transport";
import { en } from "./templates/en";
import { ptBR } from "./templates/pt-br";
import type { Composed, TemplateInput, Templates } from "./templates/template";

const TEMPLATES: Record<Locale, Templates> = { en, "pt-BR": ptBR };

const FOOTER: Record<Locale, string> = {
  en: "This message was sent by Site Platform about your account. You cannot reply to it.",
  "pt-BR": "Esta mensagem foi enviada pela Site Platform sobre a sua conta. Não é possível respondê-la.",
};

const CODE_LABEL: Record<Locale, string> = { en: "Your code", "pt-BR": "Seu código" };

const HTML_ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Text as HTML text or a double-quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
}

function compose(message: OutboundMessage, locale: Locale): Composed {
  const template = TEMPLATES[locale][message.purpose] as (input: TemplateInput<MessagePurpose>) => Composed;
  return template({
    vars: (message.vars ?? {}) as TemplateInput<MessagePurpose>["vars"],
    code: message.code ?? "",
    link: message.link ?? "",
  });
}

const safeLink = (link: string | undefined) => (link && /^https?:\/\//i.test(link) ? link : undefined);

function html(composed: Composed, message: OutboundMessage, locale: Locale): string {
  const p = (text: string, style = "margin:0 0 16px") => `<p style="${style}">${escapeHtml(text)}</p>`;
  const link = safeLink(message.link);
  const parts = [
    `<h1 style="font-size:20px;margin:0 0 16px">${escapeHtml(composed.subject)}</h1>`,
    ...(message.code
      ? [
          `<p style="margin:0 0 4px;color:#555">${escapeHtml(CODE_LABEL[locale])}</p>`,
          p(
            message.code,
            "margin:0 0 16px;font-size:28px;font-weight:bold;letter-spacing:4px;font-family:monospace",
          ),
        ]
      : []),
    ...composed.paragraphs.map((text) => p(text)),
    ...(link && composed.action
      ? [
          `<p style="margin:0 0 16px"><a href="${escapeHtml(link)}" style="display:inline-block;padding:10px 16px;background:#1a56db;color:#fff;text-decoration:none;border-radius:4px">${escapeHtml(composed.action)}</a></p>`,
        ]
      : []),
    p(FOOTER[locale], "margin:24px 0 0;font-size:12px;color:#777"),
  ];
  return [
    "<!doctype html>",
    `<html lang="${locale}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">`,
    `<title>${escapeHtml(composed.subject)}</title></head>`,
    '<body style="margin:0;padding:24px;font-family:-apple-system,Segoe UI,Roboto,Helvetica,Arial,sans-serif;font-size:15px;line-height:1.5;color:#111;background:#fff">',
    '<div style="max-width:560px;margin:0 auto">',
    ...parts,
    "</div></body></html>",
  ].join("\n");
}

/** The message as it leaves identity, in `locale` (an SMS is the paragraphs alone, without the footer). */
export function renderMessage(
  message: OutboundMessage,
  locale: Locale,
  channel: "email" | "sms" = "email",
): RenderedMessage {
  const composed = compose(message, locale);
  return {
    to: message.to,
    purpose: message.purpose,
    locale,
    subject: composed.subject,
    text: [...composed.paragraphs, ...(channel === "email" ? [FOOTER[locale]] : [])].join("\n\n"),
    html: html(composed, message, locale),
    ...(message.code ? { code: message.code } : {}),
    ...(message.link ? { link: message.link } : {}),
  };
}
