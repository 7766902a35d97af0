/**
 * The hosts of Client ID Metadata Documents on the fake internet (test/support/fakes/oauth-clients.ts) and
 * their DNS, which the tests define through https://dns.test/__zone/<name>. Apart from the fake so a test
 * in the Workers runtime can read it without importing the fake internet (which is Node's).
 */
export const CIMD_ZONES: Record<string, { A?: string[]; AAAA?: string[] }> = {
  /** Public addresses. */
  "cimd.test": { A: ["93.184.216.34"], AAAA: ["2606:2800:220:1::1"] },
  /** A private address; the fake serves documents there too, so a refusal proves the guard. */
  "cimd-private.test": { A: ["10.0.0.5"] },
  /** The cloud metadata address. */
  "cimd-metadata.test": { A: ["169.254.169.254"] },
  /** A public A and a unique-local AAAA (fd00::1): one private address is enough to refuse. */
  "cimd-v6.test": { A: ["93.184.216.34"], AAAA: ["fd00::1"] },
};
