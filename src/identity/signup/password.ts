import { scrypt } from "node:crypto";
import { base64url, fromBase64url, randomBytes } from "../core/crypto";

/**
 * Password hashing with scrypt (native in workerd via nodejs_compat), N=2^14, r=8, p=5: OWASP's
 * equivalent of N=2^17/p=1 at 16 MiB per hash, chosen over N=2^15/p=3 (32 MiB) because several logins
 * share one isolate's 128 MB. Stored as a PHC string carrying the parameters, so a change of parameters
 * is detected and the hash upgraded at the next successful login.
 */
export const SCRYPT_PARAMS = { ln: 14, r: 8, p: 5 } as const;

type ScryptParams = { ln: number; r: number; p: number };
let active: ScryptParams = SCRYPT_PARAMS;
let dummyHash = phcOf(SCRYPT_PARAMS, new Uint8Array(16), new Uint8Array(32));

/**
 * The parameters new hashes get and the dummy hash costs: SCRYPT_PARAMS, unless the worker has a
 * `TEST_SCRYPT_COST` binding ("ln=10,r=8,p=1"), which only the test configuration sets. The deploy
 * refuses every TEST_ var (scripts/deploy-config.mjs) and a test holds each generated production config
 * to none, so a deployed worker always hashes with SCRYPT_PARAMS. A malformed value is ignored.
 */
export function usePasswordCost(testCost: string | undefined): void {
  const m = testCost ? /^ln=(\d+),r=(\d+),p=(\d+)$/.exec(testCost) : null;
  const next = m ? { ln: Number(m[1]), r: Number(m[2]), p: Number(m[3]) } : SCRYPT_PARAMS;
  if (!inBounds(next)) return;
  if (next.ln === active.ln && next.r === active.r && next.p === active.p) return;
  active = next;
  dummyHash = phcOf(next, new Uint8Array(16), new Uint8Array(32));
}

/** The parameters hashes are made with now (SCRYPT_PARAMS outside tests). */
export function passwordCost(): ScryptParams {
  return active;
}

function inBounds({ ln, r, p }: ScryptParams): boolean {
  return ln >= 10 && ln <= 20 && r >= 1 && r <= 32 && p >= 1 && p <= 16;
}

function phcOf({ ln, r, p }: ScryptParams, salt: Uint8Array, hash: Uint8Array): string {
  return `$scrypt$ln=${ln},r=${r},p=${p}$${base64url(salt)}$${base64url(hash)}`;
}
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
  return hashPasswordWith(password, active);
}

/** Hash with explicit parameters (parameter migrations and their tests). */
export async function hashPasswordWith(password: string, params: { ln: number; r: number; p: number }) {
  const { ln, r, p } = params;
  const salt = randomBytes(SALT_LENGTH);
  const hash = await derive(password, salt, ln, r, p, KEY_LENGTH);
  return phcOf({ ln, r, p }, salt, hash);
}

function parse(phc: string): ParsedHash | null {
  const m = /^\$scrypt\$ln=(\d+),r=(\d+),p=(\d+)\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/.exec(phc);
  if (!m) return null;
  const [ln, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (!inBounds({ ln, r, p })) return null;
  return { ln, r, p, salt: fromBase64url(m[4]!), hash: fromBase64url(m[5]!) };
}

export interface PasswordCheck {
  ok: boolean;
  /** The stored hash uses other parameters than the current ones: rehash after a successful login. */
  needsRehash: boolean;
}

/**
 * Verifies `password` against `phc`; with `phc` null the same work is spent on a dummy hash (a fixed hash
 * with the current parameters), so refusing an unknown e-mail costs the same scrypt work as refusing a
 * wrong password.
 */
export async function verifyPassword(password: string, phc: string | null): Promise<PasswordCheck> {
  const parsed = parse(phc ?? dummyHash) ?? parse(dummyHash)!;
  const derived = await derive(password, parsed.salt, parsed.ln, parsed.r, parsed.p, parsed.hash.length);
  let diff = derived.length ^ parsed.hash.length;
  for (let i = 0; i < derived.length; i++) diff |= derived[i]! ^ (parsed.hash[i] ?? 0);
  const ok = phc !== null && diff === 0;
  const needsRehash = ok && (parsed.ln !== active.ln || parsed.r !== active.r || parsed.p !== active.p);
  return { ok, needsRehash };
}

/** Spends one hash of work without a comparison (signup of an already registered address). */
export async function spendHashWork(password: string): Promise<void> {
  await verifyPassword(password, null);
}
