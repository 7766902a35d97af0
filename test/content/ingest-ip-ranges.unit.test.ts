import { describe, expect, it } from "vitest";
import { isPublicAddress, parseIPv4, parseIPv6 } from "../../src/lib/ip-ranges";

/** [address, public?] at, inside and just outside the edges of every special-purpose range. */
const V4: ReadonlyArray<readonly [string, boolean]> = [
  // 0.0.0.0/8 "this network"
  ["0.0.0.0", false],
  ["0.255.255.255", false],
  ["1.0.0.0", true],
  // 10/8
  ["9.255.255.255", true],
  ["10.0.0.0", false],
  ["10.123.4.5", false],
  ["10.255.255.255", false],
  ["11.0.0.0", true],
  // 100.64/10 CGNAT
  ["100.63.255.255", true],
  ["100.64.0.0", false],
  ["100.100.100.200", false],
  ["100.127.255.255", false],
  ["100.128.0.0", true],
  // 127/8
  ["126.255.255.255", true],
  ["127.0.0.1", false],
  ["127.255.255.255", false],
  ["128.0.0.0", true],
  // 169.254/16 link-local, cloud metadata
  ["169.253.255.255", true],
  ["169.254.0.0", false],
  ["169.254.169.254", false],
  ["169.254.255.255", false],
  ["169.255.0.0", true],
  // 172.16/12
  ["172.15.255.255", true],
  ["172.16.0.0", false],
  ["172.31.255.255", false],
  ["172.32.0.0", true],
  // 192.0.0/24, 192.0.2/24
  ["191.255.255.255", true],
  ["192.0.0.0", false],
  ["192.0.0.255", false],
  ["192.0.1.0", true],
  ["192.0.2.0", false],
  ["192.0.2.255", false],
  ["192.0.3.0", true],
  // 192.88.99/24 6to4 relay
  ["192.88.98.255", true],
  ["192.88.99.1", false],
  ["192.88.100.0", true],
  // 192.168/16
  ["192.167.255.255", true],
  ["192.168.0.0", false],
  ["192.168.255.255", false],
  ["192.169.0.0", true],
  // 198.18/15 benchmarking
  ["198.17.255.255", true],
  ["198.18.0.0", false],
  ["198.19.255.255", false],
  ["198.20.0.0", true],
  // 198.51.100/24, 203.0.113/24 documentation
  ["198.51.99.255", true],
  ["198.51.100.0", false],
  ["198.51.100.255", false],
  ["198.51.101.0", true],
  ["203.0.112.255", true],
  ["203.0.113.0", false],
  ["203.0.113.255", false],
  ["203.0.114.0", true],
  // 224/4 multicast, 240/4 reserved, broadcast
  ["223.255.255.255", true],
  ["224.0.0.0", false],
  ["239.255.255.255", false],
  ["240.0.0.0", false],
  ["255.255.255.255", false],
  // ordinary public
  ["8.8.8.8", true],
  ["93.184.216.34", true],
  ["1.1.1.1", true],
];

/** Other notations of IPv4 that `inet_aton` and URL parsers accept. */
const V4_NOTATIONS: ReadonlyArray<readonly [string, boolean]> = [
  ["0x7f.1", false], // hex, shortened: 127.0.0.1
  ["0x7f000001", false],
  ["2130706433", false], // one decimal integer
  ["017700000001", false], // one octal integer
  ["0177.0.0.1", false], // octal first part
  ["127.1", false],
  ["127.0.1", false],
  ["0", false], // 0.0.0.0
  ["0xa9.0xfe.0xa9.0xfe", false], // 169.254.169.254
  ["0251.0376.0251.0376", false], // 169.254.169.254 octal
  ["2852039166", false], // 169.254.169.254 as integer
  ["10.0x0.0.01", false],
  ["0xA.1", false],
  ["127.0.0.1.", false], // trailing dot
  ["1572395042", true], // 93.184.216.34 as integer
  ["0x5d.0xb8.0xd8.0x22", true],
  ["08.0.0.1", false], // invalid octal: not an address at all, so not public
  ["256.0.0.1", false], // out of range
  ["1.2.3.4.5", false],
  ["", false],
  ["img.test", false], // a name is not an address
];

const V6: ReadonlyArray<readonly [string, boolean]> = [
  ["::", false],
  ["::1", false],
  ["[::1]", false],
  ["0:0:0:0:0:0:0:1", false],
  ["::2", false], // IPv4-compatible ::/96 (deprecated)
  ["::8.8.8.8", false],
  // IPv4-mapped ::ffff:0:0/96 follows the embedded address
  ["::ffff:127.0.0.1", false],
  ["::ffff:7f00:1", false],
  ["::ffff:169.254.169.254", false],
  ["::ffff:a9fe:a9fe", false],
  ["::ffff:10.0.0.1", false],
  ["::ffff:8.8.8.8", true],
  ["0:0:0:0:0:ffff:5db8:d822", true],
  // NAT64 64:ff9b::/96 follows the embedded address; the local-use /48 is never public
  ["64:ff9b::a00:1", false],
  ["64:ff9b::10.0.0.1", false],
  ["64:ff9b::127.0.0.1", false],
  ["64:ff9b::8.8.8.8", true],
  ["64:ff9b:1::8.8.8.8", false],
  // 6to4 2002::/16 follows the embedded address
  ["2002:a00:1::1", false],
  ["2002:7f00:1::", false],
  ["2002:a9fe:a9fe::1", false],
  ["2002:808:808::1", true],
  // Teredo 2001::/32 and the rest of 2001::/23
  ["2001::1", false],
  ["2001:0:4136:e378:8000:63bf:3fff:fdd2", false],
  ["2001:2::1", false],
  ["2001:1ff:ffff::1", false],
  ["2001:200::1", true], // first block after 2001::/23
  // documentation
  ["2001:db8::1", false],
  ["2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", false],
  ["2001:db9::1", true],
  ["2001:db7:ffff::1", true],
  ["3fff::1", false],
  ["3fff:fff:ffff::1", false],
  ["3fff:1000::1", true],
  // unique local fc00::/7
  ["fbff:ffff::1", false], // outside 2000::/3 anyway
  ["fc00::1", false],
  ["fd00::1", false],
  ["fdff:ffff::1", false],
  // link-local fe80::/10, site-local, multicast ff00::/8
  ["fe80::1", false],
  ["febf:ffff::1", false],
  ["fec0::1", false],
  ["ff02::1", false],
  ["ff0e::1", false],
  // discard-only 100::/64
  ["100::", false],
  ["100::ffff:ffff:ffff:ffff", false],
  // global unicast 2000::/3 edges
  ["1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false],
  ["2000::1", true],
  ["3ffe:ffff::1", true],
  ["4000::1", false],
  ["2606:2800:220:1::1", true],
  ["[2606:2800:220:1::1]", true],
  ["2a00:1450:4001:81c::200e", true],
  // malformed or scoped: not public
  ["fe80::1%eth0", false],
  ["2606:2800:220:1::1%1", false],
  ["1::2::3", false],
  ["12345::1", false],
  ["1:2:3:4:5:6:7:8:9", false],
  ["1.2.3.4::", false],
  ["::ffff:1.2.3", false],
  ["::ffff:01.2.3.4", false],
  [":::1", false],
];

describe("isPublicAddress", () => {
  it.each(V4)("IPv4 %s -> public %s", (ip, expected) => {
    expect(isPublicAddress(ip)).toBe(expected);
  });
  it.each(V4_NOTATIONS)("IPv4 notation %s -> public %s", (ip, expected) => {
    expect(isPublicAddress(ip)).toBe(expected);
  });
  it.each(V6)("IPv6 %s -> public %s", (ip, expected) => {
    expect(isPublicAddress(ip)).toBe(expected);
  });
});

describe("parsers", () => {
  it("reads every IPv4 notation as the same address", () => {
    const loopback = 0x7f000001;
    for (const s of [
      "127.0.0.1",
      "0x7f.1",
      "2130706433",
      "017700000001",
      "127.1",
      "0x7f.0.0.1",
      "0177.0.0.01",
    ]) {
      expect(parseIPv4(s), s).toBe(loopback);
    }
  });
  it("expands :: and a dotted tail", () => {
    expect(parseIPv6("::ffff:169.254.169.254")).toEqual([0, 0, 0, 0, 0, 0xffff, 0xa9fe, 0xa9fe]);
    expect(parseIPv6("1::")).toEqual([1, 0, 0, 0, 0, 0, 0, 0]);
    expect(parseIPv6("1:2:3:4:5:6:7::")).toEqual([1, 2, 3, 4, 5, 6, 7, 0]);
    expect(parseIPv6("1:2:3:4:5:6:7:8::")).toBeNull();
  });
});
