/**
 * The gateway's body cap (src/lib/body-caps.ts) is raised for `/v1/mcp` only, to 12 MiB (one upload_media
 * call with an 8 MiB image as base64): such a body reaches content (here a bad key's 401), one byte more
 * is 413 at the edge, and every other path keeps 9 MiB.
 */
import { describe, expect, it } from "vitest";
import { MCP_UPLOAD_MESSAGE_MAX_BYTES } from "../../src/lib/body-caps";
import { call } from "../support/platform";

const MIB = 1024 * 1024;

describe("edge body limit of /v1/mcp", () => {
  it("passes a 10.7 MiB MCP message on to content, refuses one above 12 MiB, keeps 9 MiB elsewhere", async () => {
    const upload = (size: number) => ({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "upload_media", arguments: { data: "A".repeat(size) } },
    });
    const passed = await call("POST", "/v1/mcp", {
      body: upload(Math.ceil((8 * MIB) / 3) * 4),
      token: "ck_whatever",
    });
    expect(passed.status).toBe(401);
    const over = await call("POST", "/v1/mcp", {
      body: upload(MCP_UPLOAD_MESSAGE_MAX_BYTES),
      token: "ck_whatever",
    });
    expect(over.status).toBe(413);
    expect(over.body).toMatchObject({ code: "PAYLOAD_TOO_LARGE", detail: "The body exceeds 12 MiB." });
    const media = await call("POST", "/v1/media", { body: { x: "x".repeat(9 * MIB) }, token: "ck_whatever" });
    expect(media.status).toBe(413);
  });
});
