/**
 * The public origin's body caps (src/lib/body-caps.ts, applied by the gateway and by content's public
 * edge): `/v1/mcp` alone is raised, enough for one upload_media call carrying the largest upload as base64
 * and its framing; every other path keeps 9 MiB.
 */
import { describe, expect, it } from "vitest";
import { MCP_BODY_MAX_BYTES } from "../../src/content/mcp/transport";
import { UPLOAD_MAX_BYTES } from "../../src/content/media/upload";
import {
  base64Length,
  MAX_PUBLIC_BODY_BYTES,
  MCP_UPLOAD_MESSAGE_MAX_BYTES,
  publicBodyCap,
} from "../../src/lib/body-caps";

describe("public body caps", () => {
  it("an upload_media message fits /v1/mcp's cap with room for its envelope; other paths keep 9 MiB", () => {
    expect(base64Length(3)).toBe(4);
    expect(base64Length(4)).toBe(8);
    expect(MCP_UPLOAD_MESSAGE_MAX_BYTES - base64Length(UPLOAD_MAX_BYTES)).toBeGreaterThan(1024 * 1024);
    expect(publicBodyCap("/v1/mcp")).toBe(MCP_UPLOAD_MESSAGE_MAX_BYTES);
    for (const path of ["/v1/media", "/v1/import", "/v1/mcp/", "/v1/mcpx", "/api/v1/auth/login"])
      expect(publicBodyCap(path), path).toBe(MAX_PUBLIC_BODY_BYTES);
    expect(MCP_BODY_MAX_BYTES).toBeLessThan(MAX_PUBLIC_BODY_BYTES);
  });
});
