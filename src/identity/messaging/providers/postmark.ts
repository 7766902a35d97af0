/**
 * Postmark's single-email API (https://postmarkapp.com/developer/user-guide/send-email-with-api):
 * `POST https://api.postmarkapp.com/email`, `X-Postmark-Server-Token: <server token>`, `Accept` and
 * `Content-Type: application/json`, JSON `{From, To, Subject, HtmlBody, TextBody, MessageStream, Tag}`.
 * Transactional mail goes to the default `outbound` stream.
 */
import type { ProviderRequest, RenderedMessage } from "./transport";

export const POSTMARK_URL = "https://api.postmarkapp.com/email";

export interface PostmarkConfig {
  serverToken: string;
  from: string;
  /** Message stream; Postmark's default transactional stream is `outbound`. */
  stream?: string;
  url?: string;
}

export function postmarkRequest(config: PostmarkConfig, m: RenderedMessage): ProviderRequest {
  return {
    method: "POST",
    url: config.url || POSTMARK_URL,
    headers: {
      accept: "application/json",
      "content-type": "application/json",
      "x-postmark-server-token": config.serverToken,
    },
    body: JSON.stringify({
      From: config.from,
      To: m.to,
      Subject: m.subject,
      HtmlBody: m.html,
      TextBody: m.text,
      MessageStream: config.stream || "outbound",
      Tag: m.purpose,
    }),
  };
}
