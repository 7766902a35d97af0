import { scrypt } from "node:crypto";
import { base64url, fromBase64url, randomBytes } from "./crypto";

/**
 * Password hashing with scrypt (native in workerd via nodejs_compat), N=2^14, r=8, p=5: OWASP's
 * equivalent of N=2^17/p=1 at 16 MiB per hash, chosen over N=2^15/p=3 (32 MiB) because several logins
 * share one isolate's 128 MB. Stored as a PHC string carrying the parameters, so a change of parameters
 * is detected and the hash upgraded at the next successful login.
 */
export const SCRYPT_PARAMS = { ln: 14, r: 8, p: 5 } as const;
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;

interface ParsedHash {
  ln: number;
  r: number;
  p: number;
  salt: Uint8Array;
  hash: Uint8Array;
}

function derive(password: string, salt: Uint8Array, ln: number, r: number, p: number, keylen: number) {
  const N = 2 ** ln;
  return new Promise<Uint8Array>((resolve, reject) => {
    scrypt(
      password.normalize("NFKC"),
      salt,
      keylen,
      { N, r, p, maxmem: 256 * N * r + 1024 * 1024 },
      (err, key) => (err ? reject(err) : resolve(new Uint8Array(key))),
    );
  });
}

export function hashPassword(password: string): Promise<string> {
  return hashPasswordWith(password, SCRYPT_PARAMS);
}

/** Hash with explicit parameters (parameter migrations and their tests). */
export async function hashPasswordWith(password: string, params: { ln: number; r: number; p: number }) {
  const { ln, r, p } = params;
  const salt = randomBytes(SALT_LENGTH);
  const hash = await derive(password, salt, ln, r, p, KEY_LENGTH);
  return `$scrypt$ln=${ln},r=${r},p=${p}$${base64url(salt)}$${base64url(hash)}`;
}

function parse(phc: string): ParsedHash | null {
  const m = /^\$scrypt\$ln=(\d+),r=(\d+),p=(\d+)\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/.exec(phc);
  if (!m) return null;
  const [ln, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (ln < 10 || ln > 20 || r < 1 || r > 32 || p < 1 || p > 16) return null;
  return { ln, r, p, salt: fromBase64url(m[4]!), hash: fromBase64url(m[5]!) };
}

/**
 * A fixed hash with the current parameters, verified against when there is no account (or no
 * password), so refusing an unknown e-mail costs the same scrypt work as refusing a wrong password.
 */
const DUMMY_HASH = `$scrypt$ln=${SCRYPT_PARAMS.ln},r=${SCRYPT_PARAMS.r},p=${SCRYPT_PARAMS.p}$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`;

export interface PasswordCheck {
  ok: boolean;
  /** The stored hash uses other parameters than SCRYPT_PARAMS: rehash after a successful login. */
  needsRehash: boolean;
}

/** Verifies `password` against `phc`; with `phc` null the same work is spent on a dummy hash. */
export async function verifyPassword(password: string, phc: string | null): Promise<PasswordCheck> {
  const parsed = parse(phc ?? DUMMY_HASH) ?? parse(DUMMY_HASH)!;
  const derived = await derive(password, parsed.salt, parsed.ln, parsed.r, parsed.p, parsed.hash.length);
  let diff = derived.length ^ parsed.hash.length;
  for (let i = 0; i < derived.length; i++) diff |= derived[i]! ^ (parsed.hash[i] ?? 0);
  const ok = phc !== null && diff === 0;
  const needsRehash =
    ok && (parsed.ln !== SCRYPT_PARAMS.ln || parsed.r !== SCRYPT_PARAMS.r || parsed.p !== SCRYPT_PARAMS.p);
  return { ok, needsRehash };
}

/** Spends one hash of work without a comparison (signup of an already registered address). */
export async function spendHashWork(password: string): Promise<void> {
  await verifyPassword(password, null);
}
