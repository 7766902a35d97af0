/**
 * The one `node:crypto` function identity uses (native in workerd with nodejs_compat). Declared here
 * because the project's tsconfig does not load @types/node for worker code.
 */
declare module "node:crypto" {
  export function scrypt(
    password: string | Uint8Array,
    salt: string | Uint8Array,
    keylen: number,
    options: { N?: number; r?: number; p?: number; maxmem?: number },
    callback: (err: Error | null, derivedKey: Uint8Array) => void,
  ): void;
}
