/**
 * Which IP addresses a server-side fetch of a user-supplied URL may talk to (content's image fetcher
 * and webhook sender, identity's OpenID provider discovery, JWKS and token requests). The goal is SSRF
 * defence: such a URL must never make the platform reach loopback, a private network, link-local cloud metadata
 * (169.254.169.254), or any special-purpose range, whatever notation the address is written in.
 *
 * IPv4 is judged by a deny-list of the IANA special-purpose ranges that are not globally reachable.
 * IPv6 is judged by an allow-list: only global unicast (2000::/3) minus its special blocks is public;
 * forms that carry an IPv4 address inside (mapped, NAT64, 6to4) are judged by that embedded address.
 * Anything that does not parse as an address is NOT public (fail closed).
 */

/** [network, prefix length] of IPv4 ranges that are not publicly routable (RFC 6890 and successors). */
const NON_PUBLIC_V4: ReadonlyArray<readonly [string, number]> = [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local, cloud metadata endpoints
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // TEST-NET-1
  ["192.88.99.0", 24], // 6to4 relay anycast (deprecated)
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // TEST-NET-2
  ["203.0.113.0", 24], // TEST-NET-3
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, includes 255.255.255.255 broadcast
];

const V4_RANGES = NON_PUBLIC_V4.map(([net, len]) => {
  const base = parseIPv4Strict(net);
  if (base === null) throw new Error(`bad range ${net}`);
  const mask = len === 0 ? 0 : (0xffffffff << (32 - len)) >>> 0;
  return { base: (base & mask) >>> 0, mask };
});

function parseIPv4Strict(s: string): number | null {
  const parts = s.split(".");
  if (parts.length !== 4) return null;
  let n = 0;
  for (const p of parts) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(p)) return null;
    const v = Number(p);
    if (v > 255) return null;
    n = n * 256 + v;
  }
  return n;
}

function parseV4Part(part: string): number | null {
  if (part === "") return null;
  let digits = part;
  let radix = 10;
  if (/^0x/i.test(part)) {
    digits = part.slice(2);
    radix = 16;
    if (digits === "") return 0;
    if (!/^[0-9a-f]+$/i.test(digits)) return null;
  } else if (part.length > 1 && part.startsWith("0")) {
    digits = part.slice(1);
    radix = 8;
    if (!/^[0-7]+$/.test(digits)) return null;
  } else if (!/^[0-9]+$/.test(digits)) {
    return null;
  }
  const v = Number.parseInt(digits, radix);
  return Number.isSafeInteger(v) ? v : null;
}

/**
 * Parses IPv4 in every notation `inet_aton` and the WHATWG URL parser accept: one to four parts,
 * each decimal, octal (leading 0) or hex (0x), the last part filling the remaining bytes
 * (`0x7f.1`, `127.1`, `2130706433`, `017700000001`). Returns the address as an unsigned 32-bit
 * integer, or null when `s` is not an IPv4 address in any notation.
 */
export function parseIPv4(s: string): number | null {
  let parts = s.split(".");
  if (parts.length > 1 && parts[parts.length - 1] === "") parts = parts.slice(0, -1);
  if (parts.length < 1 || parts.length > 4) return null;
  const values: number[] = [];
  for (const p of parts) {
    const v = parseV4Part(p);
    if (v === null) return null;
    values.push(v);
  }
  const last = values.pop() as number;
  if (values.some((v) => v > 255)) return null;
  if (last >= 256 ** (4 - values.length)) return null;
  let n = last;
  values.forEach((v, i) => {
    n += v * 256 ** (3 - i);
  });
  return n;
}

/**
 * Parses an IPv6 address (optionally in brackets, with `::` compression and a dotted IPv4 tail) into
 * eight 16-bit groups; null when it is not one. A zone id (`fe80::1%eth0`) is refused as unparseable:
 * scoped addresses are never public.
 */
export function parseIPv6(input: string): number[] | null {
  let s = input;
  if (s.startsWith("[") && s.endsWith("]")) s = s.slice(1, -1);
  if (s.includes("%") || !s.includes(":")) return null;
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const parseSide = (side: string): number[] | null => {
    if (side === "") return [];
    const out: number[] = [];
    const pieces = side.split(":");
    for (let i = 0; i < pieces.length; i++) {
      const p = pieces[i] as string;
      if (i === pieces.length - 1 && p.includes(".")) {
        const v4 = parseIPv4Strict(p);
        if (v4 === null) return null;
        out.push(v4 >>> 16, v4 & 0xffff);
      } else {
        if (!/^[0-9a-f]{1,4}$/i.test(p)) return null;
        out.push(Number.parseInt(p, 16));
      }
    }
    return out;
  };
  const head = parseSide(halves[0] as string);
  if (head === null) return null;
  if (halves.length === 1) return head.length === 8 ? head : null;
  const tail = parseSide(halves[1] as string);
  if (tail === null) return null;
  // A dotted tail is only legal at the very end.
  if (head.length + tail.length > 7) return null;
  if ((halves[0] as string).includes(".")) return null;
  return [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
}

export function isPublicIPv4(n: number): boolean {
  return !V4_RANGES.some((r) => (n & r.mask) >>> 0 === r.base);
}

function embeddedV4(hi: number, lo: number): number {
  return hi * 65536 + lo;
}

export function isPublicIPv6(g: readonly number[]): boolean {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = g as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const first80Zero = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  // ::ffff:0:0/96, IPv4-mapped: the same host as the embedded IPv4 address.
  if (first80Zero && g5 === 0xffff) return isPublicIPv4(embeddedV4(g6, g7));
  // ::/96: unspecified, loopback and the deprecated IPv4-compatible form; never a real public host.
  if (first80Zero && g5 === 0) return false;
  // 64:ff9b::/96, well-known NAT64 prefix: the gateway connects to the embedded IPv4 address.
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) {
    return isPublicIPv4(embeddedV4(g6, g7));
  }
  // Only global unicast is public; this excludes fc00::/7, fe80::/10, fec0::/10, ff00::/8, 100::/64,
  // 64:ff9b:1::/48 (local-use NAT64) and the rest of ::/8.
  if ((g0 & 0xe000) !== 0x2000) return false;
  // 2001::/23 IETF protocol assignments: Teredo 2001::/32, benchmarking 2001:2::/48, ORCHID.
  if (g0 === 0x2001 && g1 < 0x0200) return false;
  // 2001:db8::/32 documentation.
  if (g0 === 0x2001 && g1 === 0x0db8) return false;
  // 2002::/16 6to4: traffic goes to the embedded IPv4 address.
  if (g0 === 0x2002) return isPublicIPv4(embeddedV4(g1, g2));
  // 3fff::/20 documentation (RFC 9637).
  if (g0 === 0x3fff && g1 < 0x1000) return false;
  return true;
}

/** The address an IP literal denotes, in any accepted notation; null when `ip` is not an address. */
export function parseIpLiteral(ip: string): { v: 4; n: number } | { v: 6; groups: number[] } | null {
  const groups = parseIPv6(ip);
  if (groups) return { v: 6, groups };
  const n = parseIPv4(ip);
  return n === null ? null : { v: 4, n };
}

/**
 * True only for a globally reachable unicast address. Accepts IPv4 in any notation (decimal, octal,
 * hex, shortened, single integer) and IPv6 with or without brackets; anything else is false.
 */
export function isPublicAddress(ip: string): boolean {
  const parsed = parseIpLiteral(ip.trim());
  if (!parsed) return false;
  return parsed.v === 4 ? isPublicIPv4(parsed.n) : isPublicIPv6(parsed.groups);
}
