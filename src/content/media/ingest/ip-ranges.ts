/** The address rules are shared with identity's OpenID provider requests: src/lib/ip-ranges.ts. */
export * from "../../../lib/ip-ranges";
