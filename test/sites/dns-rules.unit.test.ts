/** The pure parts of the DNS check: TXT strings as DoH JSON carries them, and the fleet from env. */
import { describe, expect, it } from "vitest";
import { txtValue } from "../../src/sites/health/dns";
import { platformFleet } from "../../src/sites/health/dns-check";

describe("TXT data", () => {
  it("joins the character-strings of one record, unescapes, and takes an unquoted value as is", () => {
    expect(txtValue('"platform-verify=abc"')).toBe("platform-verify=abc");
    expect(txtValue('"platform-verify=" "abc"')).toBe("platform-verify=abc");
    expect(txtValue('"a \\"quoted\\" word"')).toBe('a "quoted" word');
    expect(txtValue("bare")).toBe("bare");
  });
});

describe("fleet addresses", () => {
  it("comma lists, trimmed, IPv6 in canonical form; one family may be empty", () => {
    expect(
      platformFleet({ PLATFORM_IPV4: " 192.0.2.10 , 192.0.2.11", PLATFORM_IPV6: "2001:0DB8:0:0::10" }),
    ).toEqual({
      ipv4: ["192.0.2.10", "192.0.2.11"],
      ipv6: ["2001:db8::10"],
    });
    expect(platformFleet({ PLATFORM_IPV4: "", PLATFORM_IPV6: "::1" })).toEqual({ ipv4: [], ipv6: ["::1"] });
  });

  it("not configured: nothing set, or an entry that is not an address of its family", () => {
    for (const env of [
      {},
      { PLATFORM_IPV4: "", PLATFORM_IPV6: "" },
      { PLATFORM_IPV4: "192.0.2.999" },
      { PLATFORM_IPV4: "0x7f.1" },
      { PLATFORM_IPV4: "192.0.2.10", PLATFORM_IPV6: "192.0.2.10" },
      { PLATFORM_IPV4: "example.com" },
    ]) {
      expect(platformFleet(env), JSON.stringify(env)).toBeNull();
    }
  });
});
