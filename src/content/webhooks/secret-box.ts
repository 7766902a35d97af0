/**
 * Webhook signing secrets at rest. A secret must be readable to sign every attempt, so it cannot be
 * hashed like an API key; it is stored as AES-256-GCM ciphertext under a key derived (HKDF-SHA-256) from
 * the `WEBHOOK_SECRET_KEY` Worker secret, with the webhook's id as additional data: a copied database
 * (or a ciphertext moved onto another webhook's row) yields nothing without the Worker secret.
 * Stored form: `v1.<iv base64url>.<ciphertext base64url>`; the version names the derivation.
 */
import { base64url, base64urlDecode } from "../keys/key-hash";

const encoder = new TextEncoder();
const keys = new Map<string, Promise<CryptoKey>>();

function boxKey(serverSecret: string): Promise<CryptoKey> {
  if (!serverSecret) throw new Error("WEBHOOK_SECRET_KEY is not set");
  let key = keys.get(serverSecret);
  if (!key) {
    key = crypto.subtle
      .importKey("raw", encoder.encode(serverSecret), "HKDF", false, ["deriveKey"])
      .then((material) =>
        crypto.subtle.deriveKey(
          {
            name: "HKDF",
            hash: "SHA-256",
            salt: new Uint8Array(0),
            info: encoder.encode("content webhook secret box v1"),
          },
          material,
          { name: "AES-GCM", length: 256 },
          false,
          ["encrypt", "decrypt"],
        ),
      );
    keys.set(serverSecret, key);
  }
  return key;
}

export async function sealSecret(serverSecret: string, webhookId: string, secret: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: encoder.encode(webhookId) },
    await boxKey(serverSecret),
    encoder.encode(secret),
  );
  return `v1.${base64url(iv)}.${base64url(new Uint8Array(sealed))}`;
}

/** The secret, or throws when the stored form is not ours or was not sealed for this webhook. */
export async function openSecret(serverSecret: string, webhookId: string, stored: string): Promise<string> {
  const [version, iv, sealed] = stored.split(".");
  const ivBytes = base64urlDecode(iv ?? "");
  const sealedBytes = base64urlDecode(sealed ?? "");
  if (version !== "v1" || !ivBytes || ivBytes.length !== 12 || !sealedBytes) {
    throw new Error("unrecognized sealed webhook secret");
  }
  const plain = await crypto.subtle.decrypt(
    { name: "AES-GCM", iv: ivBytes, additionalData: encoder.encode(webhookId) },
    await boxKey(serverSecret),
    sealedBytes,
  );
  return new TextDecoder().decode(plain);
}
