/**
 * `npm run bench` beside a running `npm start` (issue 35: it died with EADDRINUSE on 8791, the local
 * OpenID provider's port, which its memory row's `npm start` took unshifted): every port of every stack
 * the bench starts is apart from `npm start`'s (the provider's included) and from each other's, and the
 * provider cannot be started without the stack's offset. No load, no platform: the port plan only.
 */
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { assertPortsFree, BENCH_PORT_OFFSET, benchPorts, startPorts } from "../../bench/ports.mjs";
import { startSsoDemo } from "../../scripts/sso-demo.mjs";

describe("the bench's ports", () => {
  it("npm start listens on 8787-8791: the four Workers and the SSO demo's OpenID provider", () => {
    expect(startPorts(0)).toEqual([8787, 8788, 8789, 8790, 8791]);
    expect(startPorts(50)).toEqual([8837, 8838, 8839, 8840, 8841]);
  });

  it("every stack of the bench is disjoint from npm start's ports and from the others", () => {
    const stacks = Object.entries(benchPorts(BENCH_PORT_OFFSET));
    expect(stacks.map(([name]) => name).sort()).toEqual([
      "ab_after",
      "ab_before",
      "bench",
      "fleet",
      "local_limiters",
      "memory",
    ]);
    const start = new Set(startPorts(0));
    const seen = new Map<number, string>();
    for (const [name, ports] of stacks) {
      for (const port of ports) {
        expect(start.has(port), `${name} takes ${port}, one of npm start's`).toBe(false);
        expect(seen.get(port), `${name} and ${seen.get(port)} both take ${port}`).toBeUndefined();
        seen.set(port, name);
      }
    }
    // The memory row runs `npm start` itself: its provider is offset with its Workers.
    expect(benchPorts(BENCH_PORT_OFFSET).memory).toContain(8791 + BENCH_PORT_OFFSET + 50);
  });

  it("the SSO demo's provider takes the stack's offset, never a fixed port", async () => {
    const identityDb = { prepare: () => ({ first: async () => null }) };
    await expect(
      // @ts-expect-error portOffset is required
      startSsoDemo({ identityDb, ssoSecretKey: "x", callbacks: [] }),
    ).rejects.toThrow(/portOffset/);
  });

  it("a port held by another process is refused at once, naming it and --port-offset", async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    const port = (holder.address() as { port: number }).port;
    try {
      await expect(assertPortsFree([port])).rejects.toThrow(
        new RegExp(`port ${port} is in use.*--port-offset`),
      );
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
    await expect(assertPortsFree([port])).resolves.toBeUndefined();
  });
});
