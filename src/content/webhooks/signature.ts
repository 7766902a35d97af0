/**
 * Standard Webhooks (https://www.standardwebhooks.com, spec 1.0.0), symmetric scheme: the secret is
 * `whsec_` + base64 of 32 random bytes (the spec asks for 24..64), the HMAC key is those decoded bytes,
 * and `webhook-signature` is `v1,` + base64(HMAC-SHA256(key, "{webhook-id}.{webhook-timestamp}.{body}")).
 * The id and the timestamp are ours, never user input, and contain no `.` (the spec's warning).
 */
const encoder = new TextEncoder();

export const SECRET_PREFIX = "whsec_";
const SECRET_BYTES = 32;

function base64(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

export function generateWebhookSecret(): string {
  return `${SECRET_PREFIX}${base64(crypto.getRandomValues(new Uint8Array(SECRET_BYTES)))}`;
}

function secretKeyBytes(secret: string): Uint8Array {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  return Uint8Array.from(atob(encoded), (c) => c.charCodeAt(0));
}

/** The `webhook-signature` entry of one secret: `v1,<base64 signature>`. */
export async function signWebhook(
  secret: string,
  id: string,
  timestamp: number,
  body: string,
): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    secretKeyBytes(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = await crypto.subtle.sign("HMAC", key, encoder.encode(`${id}.${timestamp}.${body}`));
  return `v1,${base64(new Uint8Array(mac))}`;
}

/** The three Standard Webhooks headers of one attempt (`timestamp` is the attempt's, in Unix seconds). */
export async function webhookHeaders(
  secret: string,
  id: string,
  timestamp: number,
  body: string,
): Promise<Record<string, string>> {
  return {
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": await signWebhook(secret, id, timestamp, body),
  };
}
