/**
 * OpenID client secrets at rest, sealed as content seals webhook secrets (src/content/webhooks/
 * secret-box.ts): AES-256-GCM under a key derived (HKDF-SHA-256) from identity's own Worker secret
 * `SSO_SECRET_KEY`, with the organization and configuration ids as additional data, so a copied
 * database, or a ciphertext moved onto another organization's row, yields nothing.
 * Stored form: `v1.<iv base64url>.<ciphertext base64url>`.
 */
import { base64url, fromBase64url } from "../core/crypto";

const encoder = new TextEncoder();
const keys = new Map<string, Promise<CryptoKey>>();

function boxKey(serverSecret: string | undefined): Promise<CryptoKey> {
  if (!serverSecret) throw new Error("SSO_SECRET_KEY is not set");
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
            info: encoder.encode("identity sso client secret box v1"),
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

const boundTo = (orgId: string, configId: string) => encoder.encode(`${orgId}\n${configId}`);

export async function sealClientSecret(
  serverSecret: string | undefined,
  at: { orgId: string; configId: string },
  secret: string,
): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: boundTo(at.orgId, at.configId) },
    await boxKey(serverSecret),
    encoder.encode(secret),
  );
  return `v1.${base64url(iv)}.${base64url(new Uint8Array(sealed))}`;
}

/** The secret, or throws when the stored form is not ours or was not sealed for this configuration. */
export async function openClientSecret(
  serverSecret: string | undefined,
  at: { orgId: string; configId: string },
  stored: string,
): Promise<string> {
  const [version, iv, sealed] = stored.split(".");
  if (version !== "v1" || !iv || !sealed) throw new Error("unrecognized sealed client secret");
  const plain = await crypto.subtle.decrypt(
    { name: "AES-GCM", iv: fromBase64url(iv), additionalData: boundTo(at.orgId, at.configId) },
    await boxKey(serverSecret),
    fromBase64url(sealed),
  );
  return new TextDecoder().decode(plain);
}
