/** The edge route table: which service answers a path, and the paths no service answers at the edge. */
import { describe, expect, it } from "vitest";
import { routeFor } from "../../src/gateway/routes";

describe("routeFor", () => {
  it("sends the identity API to identity", () => {
    expect(routeFor("/api/v1/auth/login")).toEqual({ upstream: "identity", requiresSession: false });
    expect(routeFor("/api/v1/auth/orgs/01JAAAAAAAAAAAAAAAAAAAAAAA/members")?.upstream).toBe("identity");
  });

  it("sends a site's API keys and forms administration to content (with a session), the rest of the site to sites", () => {
    const site = "/api/v1/sites/01JAAAAAAAAAAAAAAAAAAAAAAA";
    for (const path of [`${site}/api-keys`, `${site}/api-keys/x`, `${site}/forms`, `${site}/forms/x`]) {
      expect(routeFor(path), path).toEqual({ upstream: "content", requiresSession: true });
    }
    expect(routeFor(`${site}/formsx`)).toEqual({ upstream: "sites", requiresSession: true });
    expect(routeFor(site)).toEqual({ upstream: "sites", requiresSession: true });
    expect(routeFor(`/v1/sites/01JAAAAAAAAAAAAAAAAAAAAAAA/forms/x/submissions`)).toEqual({
      upstream: "content",
      requiresSession: false,
    });
  });

  it("sends a site's content on the dashboard to content, behind a staff session (issue 34)", () => {
    const site = "/api/v1/sites/01JAAAAAAAAAAAAAAAAAAAAAAA";
    for (const path of [
      `${site}/posts`,
      `${site}/posts/hello-world`,
      `${site}/posts/hello-world/unpublish`,
      `${site}/posts/hello-world/seo`,
      `${site}/posts/hello-world/revisions/3/restore`,
      `${site}/posts/hello-world/preview`,
      `${site}/media`,
      `${site}/media/01JBBBBBBBBBBBBBBBBBBBBBBB`,
      `${site}/categories`,
      `${site}/tags`,
      `${site}/authors`,
      `${site}/authors/ana`,
      `${site}/leads`,
      `${site}/leads/01JBBBBBBBBBBBBBBBBBBBBBBB`,
    ]) {
      expect(routeFor(path), path).toEqual({ upstream: "content", requiresSession: true });
    }
    expect(routeFor(`${site}/postsx`)?.upstream).toBe("sites");
    expect(routeFor(`${site}/themes`)?.upstream).toBe("sites");
  });

  it("routes none of identity's probes: only the gateway's own /health and /ready are public", () => {
    for (const path of [
      "/api/v1/auth/health",
      "/api/v1/auth/ready",
      "/api/v1/auth/metrics",
      "/api/v1/auth/health/",
      "/api/v1/auth/HEALTH",
    ]) {
      expect(routeFor(path), path).toBeNull();
    }
  });

  it("sends a site's key and webhook administration to content, behind a staff session", () => {
    const site = "01JAAAAAAAAAAAAAAAAAAAAAAA";
    for (const path of [
      `/api/v1/sites/${site}/api-keys`,
      `/api/v1/sites/${site}/api-keys/01JBBBBBBBBBBBBBBBBBBBBBBB`,
      `/api/v1/sites/${site}/webhooks`,
      `/api/v1/sites/${site}/webhooks/01JBBBBBBBBBBBBBBBBBBBBBBB`,
      `/api/v1/sites/${site}/webhooks/01JBBBBBBBBBBBBBBBBBBBBBBB/rotate-secret`,
      `/api/v1/sites/${site}/webhooks/01JBBBBBBBBBBBBBBBBBBBBBBB/deliveries`,
    ]) {
      expect(routeFor(path), path).toEqual({ upstream: "content", requiresSession: true });
    }
    // Only that exact segment: a site field merely starting with "webhooks" stays with sites.
    expect(routeFor(`/api/v1/sites/${site}/webhooks-legacy`)?.upstream).toBe("sites");
    expect(routeFor(`/api/v1/sites/${site}`)?.upstream).toBe("sites");
  });

  it("sends the two RFC 9728 metadata paths of /v1/mcp to content; every other /.well-known/* stays identity's (issue 37)", () => {
    for (const path of [
      "/.well-known/oauth-protected-resource",
      "/.well-known/oauth-protected-resource/v1/mcp",
    ]) {
      expect(routeFor(path), path).toEqual({ upstream: "content", requiresSession: false });
    }
    for (const path of [
      "/.well-known/oauth-authorization-server",
      "/.well-known/openid-configuration",
      "/.well-known/jwks.json",
      "/.well-known/oauth-protected-resource/",
      "/.well-known/oauth-protected-resource/v1/posts",
      "/.well-known/oauth-protected-resource/v1/mcp/x",
      "/.well-known/oauth-protected-resourcex",
    ]) {
      expect(routeFor(path), path).toEqual({ upstream: "identity", requiresSession: false });
    }
  });
});
