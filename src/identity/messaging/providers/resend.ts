/**
 * Resend's send-email API (https://resend.com/docs/api-reference/emails/send-email):
 * `POST https://api.resend.com/emails`, `Authorization: Bearer <API key>`, JSON `{from, to[], subject,
 * html, text}`. The idempotency key lets Resend drop a retried duplicate of the same message.
 */
import type { ProviderRequest, RenderedMessage } from "./transport";

export const RESEND_URL = "https://api.resend.com/emails";

export interface ResendConfig {
  apiKey: string;
  from: string;
  /** Override of the endpoint (a relay that speaks Resend's format, or a test host). */
  url?: string;
}

export function resendRequest(config: ResendConfig, m: RenderedMessage): ProviderRequest {
  return {
    method: "POST",
    url: config.url || RESEND_URL,
    headers: {
      authorization: `Bearer ${config.apiKey}`,
      "content-type": "application/json",
    },
    body: JSON.stringify({
      from: config.from,
      to: [m.to],
      subject: m.subject,
      html: m.html,
      text: m.text,
      tags: [{ name: "purpose", value: m.purpose }],
    }),
  };
}
