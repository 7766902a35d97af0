/**
 * Secrets a service must read back (a webhook's signing secret, an OpenID client secret) cannot be hashed
 * like an API key; they are stored sealed: AES-256-GCM under a key derived (HKDF-SHA-256) from a Worker
 * secret, with the record the secret belongs to as additional data, so a copied database, or a ciphertext
 * moved onto another record's row, yields nothing without the Worker secret. Each use names its own HKDF
 * label (one key per use from one Worker secret) and its Worker secret's name (for the error when unset).
 * Stored form: `v1.<iv base64url>.<ciphertext base64url>`; the version names the derivation.
 */
import { base64url, base64urlDecode } from "./base64url";

const encoder = new TextEncoder();
const keys = new Map<string, Promise<CryptoKey>>();

export interface SecretBox {
  /** The Worker secret's name, for the error when it is unset. */
  readonly secretName: string;
  /** The HKDF `info`: distinct per use, fixed forever for stored ciphertexts to stay readable. */
  readonly label: string;
}

function boxKey(box: SecretBox, serverSecret: string | undefined): Promise<CryptoKey> {
  if (!serverSecret) throw new Error(`${box.secretName} is not set`);
  const cacheKey = `${box.label}\n${serverSecret}`;
  let key = keys.get(cacheKey);
  if (!key) {
    key = crypto.subtle
      .importKey("raw", encoder.encode(serverSecret), "HKDF", false, ["deriveKey"])
      .then((material) =>
        crypto.subtle.deriveKey(
          { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: encoder.encode(box.label) },
          material,
          { name: "AES-GCM", length: 256 },
          false,
          ["encrypt", "decrypt"],
        ),
      );
    if (keys.size > 8) keys.clear();
    keys.set(cacheKey, key);
  }
  return key;
}

/** `secret` sealed for the record `boundTo` (its ids, as the caller names them). */
export async function sealSecret(
  box: SecretBox,
  serverSecret: string | undefined,
  boundTo: string,
  secret: string,
): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: encoder.encode(boundTo) },
    await boxKey(box, serverSecret),
    encoder.encode(secret),
  );
  return `v1.${base64url(iv)}.${base64url(new Uint8Array(sealed))}`;
}

/** The secret, or throws when the stored form is not ours or was not sealed for `boundTo`. */
export async function openSecret(
  box: SecretBox,
  serverSecret: string | undefined,
  boundTo: string,
  stored: string,
): Promise<string> {
  const [version, iv, sealed] = stored.split(".");
  const ivBytes = base64urlDecode(iv ?? "");
  const sealedBytes = base64urlDecode(sealed ?? "");
  if (version !== "v1" || !ivBytes || ivBytes.length !== 12 || !sealedBytes) {
    throw new Error(`unrecognized sealed secret (${box.label})`);
  }
  const plain = await crypto.subtle.decrypt(
    { name: "AES-GCM", iv: ivBytes, additionalData: encoder.encode(boundTo) },
    await boxKey(box, serverSecret),
    sealedBytes,
  );
  return new TextDecoder().decode(plain);
}
