export declare function signingKey(kid: string): JsonWebKey & { kid: string; alg: "EdDSA"; use: "sig" };
export declare function ensureDevVars(): Record<
  "gateway" | "identity" | "content" | "sites",
  Record<string, string>
>;
