/**
 * Twilio's Messages API (https://www.twilio.com/docs/messaging/api/message-resource#create-a-message-resource):
 * `POST https://api.twilio.com/2010-04-01/Accounts/{AccountSid}/Messages.json`, HTTP Basic auth with the
 * Account SID and Auth Token, form-encoded `To`, `From` (a number or sender id) or `MessagingServiceSid`
 * (an `MG…` sid), and `Body`. The SMS carries the template's plain text.
 */
import type { ProviderRequest, RenderedMessage } from "./transport";

export const TWILIO_BASE = "https://api.twilio.com";

export interface TwilioConfig {
  accountSid: string;
  authToken: string;
  /** A sender number (E.164), an alphanumeric sender id, or a Messaging Service SID (`MG…`). */
  from: string;
  /** Override of `https://api.twilio.com` (a test host). */
  base?: string;
}

function basic(user: string, password: string): string {
  const bytes = new TextEncoder().encode(`${user}:${password}`);
  return `Basic ${btoa(String.fromCharCode(...bytes))}`;
}

export function twilioRequest(config: TwilioConfig, m: RenderedMessage): ProviderRequest {
  const base = (config.base || TWILIO_BASE).replace(/\/+$/, "");
  const form = new URLSearchParams();
  form.set("To", m.to);
  form.set(/^MG[0-9a-f]{32}$/i.test(config.from) ? "MessagingServiceSid" : "From", config.from);
  form.set("Body", m.text);
  return {
    method: "POST",
    url: `${base}/2010-04-01/Accounts/${encodeURIComponent(config.accountSid)}/Messages.json`,
    headers: {
      authorization: basic(config.accountSid, config.authToken),
      "content-type": "application/x-www-form-urlencoded",
    },
    body: form.toString(),
  };
}
