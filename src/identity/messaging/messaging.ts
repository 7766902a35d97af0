import type { Env } from "../core/worker-env";
import { recipientLocale } from "./locale-store";
import type { Locale, OutboundMessage } from "./messages";
import { insertOutboxMessage } from "./outbox-store";
import { postmarkRequest } from "./providers/postmark";
import { resendRequest } from "./providers/resend";
import { sesRequest } from "./providers/ses";
import {
  DeliveryError,
  type Fetcher,
  providerTransport,
  type RenderedMessage,
  type Transport,
} from "./providers/transport";
import { twilioRequest } from "./providers/twilio";
import { renderMessage } from "./render";

export { DeliveryError } from "./providers/transport";

/** Sends e-mail. Throws when the message could not be handed to the provider. */
export interface Mailer {
  send(message: OutboundMessage): Promise<void>;
}

/** Sends SMS. Throws when the message could not be handed to the provider. */
export interface SmsSender {
  send(message: OutboundMessage): Promise<void>;
}

/** Development and tests: messages are stored in D1 and read back through the dev outbox route. */
export class OutboxAdapter implements Transport {
  constructor(
    private readonly db: D1Database,
    private readonly channel: "email" | "sms",
  ) {}

  async send(m: RenderedMessage): Promise<void> {
    await insertOutboxMessage(this.db, this.channel, m);
  }
}

/** No provider configured: every send fails, so callers fail closed (503/502) instead of pretending. */
class UnconfiguredAdapter implements Transport {
  async send(): Promise<void> {
    throw new DeliveryError("no provider configured");
  }
}

/**
 * Renders each message from its kind's template in the recipient's language (the account's `locale`
 * found by the address or phone; else the message's own hint, e.g. an invitation's inviter; else English)
 * and hands it to the transport.
 */
class TemplatedSender implements Mailer, SmsSender {
  constructor(
    private readonly db: D1Database,
    private readonly channel: "email" | "sms",
    private readonly transport: Transport,
  ) {}

  async send(message: OutboundMessage): Promise<void> {
    const locale: Locale =
      (await recipientLocale(this.db, this.channel, message.to)) ?? message.locale ?? "en";
    await this.transport.send(renderMessage(message, locale, this.channel));
  }
}

/** The providers' APIs are the operator's configuration, never a user's URL. */
const providerFetch: Fetcher = (request) => fetch(request);

/** `MAIL_PROVIDER`, or `resend` when only a `MAIL_PROVIDER_URL` is set (a relay speaking Resend's request). */
export function mailProvider(env: Env): "resend" | "postmark" | "ses" | null {
  const name = env.MAIL_PROVIDER?.trim().toLowerCase();
  if (name === "resend" || name === "postmark" || name === "ses") return name;
  if (!name && env.MAIL_PROVIDER_URL) return "resend";
  return null;
}

/** `SMS_PROVIDER` (`twilio`), or Twilio's request when only an `SMS_PROVIDER_URL` is set. */
export function smsProvider(env: Env): "twilio" | null {
  const name = env.SMS_PROVIDER?.trim().toLowerCase();
  if (name === "twilio") return "twilio";
  if (!name && env.SMS_PROVIDER_URL) return "twilio";
  return null;
}

/** The e-mail provider the configuration names (no provider: every send fails). */
export function mailTransport(env: Env): Transport {
  const from = env.MAIL_FROM ?? "no-reply@site-platform";
  const token = env.MAIL_PROVIDER_TOKEN ?? "";
  switch (mailProvider(env)) {
    case "resend":
      return providerTransport(
        "resend",
        (m) => resendRequest({ apiKey: token, from, url: env.MAIL_PROVIDER_URL }, m),
        providerFetch,
      );
    case "postmark":
      return providerTransport(
        "postmark",
        (m) => postmarkRequest({ serverToken: token, from, url: env.MAIL_PROVIDER_URL }, m),
        providerFetch,
      );
    case "ses": {
      // MAIL_PROVIDER_TOKEN = "<access key id>:<secret access key>" of an IAM user allowed ses:SendEmail.
      const colon = token.indexOf(":");
      const config = {
        region: env.MAIL_PROVIDER_REGION ?? "us-east-1",
        accessKeyId: colon > 0 ? token.slice(0, colon) : "",
        secretAccessKey: colon > 0 ? token.slice(colon + 1) : "",
        from,
        endpoint: env.MAIL_PROVIDER_URL,
      };
      return providerTransport("ses", (m) => sesRequest(config, m), providerFetch);
    }
    case null:
      return new UnconfiguredAdapter();
  }
}

export function smsEnabled(env: Env): boolean {
  return env.SMS_ENABLED === "true" && (devOutboxEnabled(env) || smsProvider(env) !== null);
}

export function devOutboxEnabled(env: Env): boolean {
  return env.DEV_OUTBOX === "true";
}

export function createMailer(env: Env): Mailer {
  const transport = devOutboxEnabled(env) ? new OutboxAdapter(env.DB, "email") : mailTransport(env);
  return new TemplatedSender(env.DB, "email", transport);
}

/** The SMS provider the configuration names (none: every send fails, and smsEnabled is false). */
export function smsTransport(env: Env): Transport {
  if (smsProvider(env) !== "twilio") return new UnconfiguredAdapter();
  const config = {
    accountSid: env.TWILIO_ACCOUNT_SID ?? "",
    authToken: env.SMS_PROVIDER_TOKEN ?? "",
    from: env.SMS_FROM ?? "",
    base: env.SMS_PROVIDER_URL,
  };
  return providerTransport("twilio", (m) => twilioRequest(config, m), providerFetch);
}

export function createSmsSender(env: Env): SmsSender {
  const transport = devOutboxEnabled(env) ? new OutboxAdapter(env.DB, "sms") : smsTransport(env);
  return new TemplatedSender(env.DB, "sms", transport);
}
