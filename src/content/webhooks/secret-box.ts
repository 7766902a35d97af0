/**
 * Webhook signing secrets at rest (src/lib/secret-box.ts): a secret must be readable to sign every attempt,
 * so it is sealed, not hashed, under the `WEBHOOK_SECRET_KEY` Worker secret, bound to the webhook's id.
 */
import { openSecret as open, type SecretBox, sealSecret as seal } from "../../lib/secret-box";

const WEBHOOK_SECRETS: SecretBox = {
  secretName: "WEBHOOK_SECRET_KEY",
  label: "content webhook secret box v1",
};

export function sealWebhookSecret(serverSecret: string, webhookId: string, secret: string): Promise<string> {
  return seal(WEBHOOK_SECRETS, serverSecret, webhookId, secret);
}

/** The secret, or throws when the stored form is not ours or was not sealed for this webhook. */
export function openWebhookSecret(serverSecret: string, webhookId: string, stored: string): Promise<string> {
  return open(WEBHOOK_SECRETS, serverSecret, webhookId, stored);
}
