/**
 * SVG sanitizing on write, through `PATCH /api/v1/sites/{id}`: the public corpora's hostile SVG reach
 * `logo_svg`, `favicon_svg` and `logo.{light,dark}.svg_markup` over HTTP. Each answer is either 200 with
 * clean, stable markup that is exactly what got stored, or 400 SETTINGS_INVALID_SVG with the stored row
 * unchanged. Legitimate icons come back byte-for-byte. (The sanitizer's own exhaustive corpus runs are
 * in svg-sanitizer.unit.test.ts; this proves the route stores only what the sanitizer gave back.)
 */
import { describe, expect, it } from "vitest";
import { SVG_MAX_BYTES, sanitizeSvg } from "../../src/lib/svg-sanitizer";
import { maliciousVectors } from "../fixtures/svg-vectors/malicious";
import { testCorpora } from "../support/corpora-binding";
import { CLEAN_SVG } from "../support/settings-fixtures";
import { api, makeSite, type SiteBody, storedRow, storedSettings } from "../support/sites-helpers";
import { scriptCapable } from "../support/sites-svg-judge";

type Answer = SiteBody & { code?: string; detail?: string };

const fits = (svg: string) => new TextEncoder().encode(svg).byteLength <= SVG_MAX_BYTES;

function svgFragment(payload: string): string {
  const tail = payload.slice(payload.search(/<svg/i));
  const end = tail.search(/<\/svg>/i);
  return end === -1 ? tail : tail.slice(0, end + "</svg>".length);
}

/** PATCHes one SVG into `field` (a getter/setter pair over the settings) and checks the outcome. */
async function patchSvg(
  site: SiteBody,
  owner: Record<string, string>,
  svg: string,
  label: string,
  place: {
    build: (svg: string) => Record<string, unknown>;
    read: (s: Record<string, unknown>) => unknown;
    path: string;
  },
): Promise<"clean" | "refused"> {
  const before = await storedRow(site.id);
  const res = await api<Answer>("PATCH", `/api/v1/sites/${site.id}`, {
    headers: owner,
    body: { settings: place.build(svg) },
  });
  if (res.status === 400) {
    expect(res.body.code, `${label}: ${res.body.detail}`).toBe("SETTINGS_INVALID_SVG");
    expect(res.body.detail?.startsWith(`${place.path}: `), label).toBe(true);
    expect(await storedRow(site.id), label).toEqual(before);
    return "refused";
  }
  expect(res.status, `${label}: ${res.text.slice(0, 200)}`).toBe(200);
  const clean = place.read(res.body.settings);
  expect(typeof clean, label).toBe("string");
  const markup = clean as string;
  expect(scriptCapable(markup), label).toEqual([]);
  // Stored exactly as answered, and sanitizing the stored markup again changes nothing.
  expect(place.read(JSON.parse((await storedSettings(site.id))!)), label).toBe(markup);
  expect(sanitizeSvg(markup), label).toEqual({ ok: true, svg: markup });
  return "clean";
}

const LOGO_SVG = {
  path: "settings.logo_svg",
  build: (svg: string) => ({ logo_svg: svg }),
  read: (s: Record<string, unknown>) => s.logo_svg,
};
const FAVICON_SVG = {
  path: "settings.favicon_svg",
  build: (svg: string) => ({ favicon_svg: svg }),
  read: (s: Record<string, unknown>) => s.favicon_svg,
};
const logoDoc = (light: string, dark: string) => ({
  logo: {
    version: 1,
    alt: "",
    width: 64,
    height: 64,
    light: { svg_markup: light },
    dark: { svg_markup: dark },
  },
});
type LogoRead = { logo: { light: { svg_markup: string }; dark: { svg_markup: string } } };
const LOGO_LIGHT = {
  path: "settings.logo.light.svg_markup",
  build: (svg: string) => logoDoc(svg, CLEAN_SVG),
  read: (s: Record<string, unknown>) => (s as LogoRead).logo.light.svg_markup,
};
const LOGO_DARK = {
  path: "settings.logo.dark.svg_markup",
  build: (svg: string) => logoDoc(CLEAN_SVG, svg),
  read: (s: Record<string, unknown>) => (s as LogoRead).logo.dark.svg_markup,
};

describe("PATCH: hostile SVG from the public corpora", () => {
  it("every SVG payload of the XSS corpus (as its <svg> fragment) reaches logo_svg and comes out clean or refused", async () => {
    const { site, owner } = await makeSite();
    const payloads = testCorpora()
      .xss.filter((x) => /<svg/i.test(x.payload))
      .map((x) => ({ title: x.title, svg: svgFragment(x.payload) }));
    expect(payloads.length).toBeGreaterThan(20);
    const outcomes = { clean: 0, refused: 0 };
    for (const { title, svg } of payloads) {
      outcomes[await patchSvg(site, owner, svg, `xss: ${title}`, LOGO_SVG)]++;
    }
    // Most are repaired rather than refused (a fragment that is not well-formed XML is refused).
    expect(outcomes.clean).toBeGreaterThan(10);
  });

  it("every svg-malicious file within the size limit reaches favicon_svg and comes out clean or refused", async () => {
    const { site, owner } = await makeSite();
    const files = testCorpora().svgMalicious.filter((f) => fits(f.svg));
    expect(files.length).toBeGreaterThan(10);
    const outcomes = { clean: 0, refused: 0 };
    for (const { name, svg } of files)
      outcomes[await patchSvg(site, owner, svg, `svg-malicious: ${name}`, FAVICON_SVG)]++;
    expect(outcomes.clean).toBeGreaterThanOrEqual(files.length - 2);
  });

  it("over 32 KiB is 400 SETTINGS_INVALID_SVG (the simple-icons over the limit); over 1 MiB the body is 413", async () => {
    const { site, owner } = await makeSite();
    const oversizedIcons = testCorpora().simpleIcons.filter((i) => !fits(i.svg));
    expect(oversizedIcons.length).toBeGreaterThan(0);
    for (const { slug, svg } of oversizedIcons) {
      expect(await patchSvg(site, owner, svg, slug, LOGO_SVG)).toBe("refused");
    }
    const bomb = testCorpora().svgMalicious.find((f) => !fits(f.svg));
    expect(bomb).toBeDefined();
    const before = await storedRow(site.id);
    const res = await api<Answer>("PATCH", `/api/v1/sites/${site.id}`, {
      headers: owner,
      body: { settings: { logo_svg: bomb!.svg } },
    });
    expect([res.status, res.body.code]).toEqual([413, "PAYLOAD_TOO_LARGE"]);
    expect(await storedRow(site.id)).toEqual(before);
  });

  it("the own vectors reach logo.light.svg_markup and logo.dark.svg_markup (same sanitizer)", async () => {
    const { site, owner } = await makeSite();
    for (const v of maliciousVectors) {
      const light = await patchSvg(site, owner, v.svg, `light: ${v.name}`, LOGO_LIGHT);
      const dark = await patchSvg(site, owner, v.svg, `dark: ${v.name}`, LOGO_DARK);
      const expected = v.expect === "ok" ? "clean" : "refused";
      expect([light, dark], v.name).toEqual([expected, expected]);
    }
  });
});

describe("PATCH: legitimate SVG is stored byte-for-byte", () => {
  it("a sample of simple-icons (viewBox case kept) in logo_svg, favicon_svg and logo svg_markup", async () => {
    const { site, owner } = await makeSite();
    const icons = testCorpora().simpleIcons.filter((i) => fits(i.svg));
    const sample = icons.filter((_, i) => i % Math.ceil(icons.length / 40) === 0);
    expect(sample.length).toBeGreaterThanOrEqual(40);
    for (const { slug, svg } of sample) {
      expect(svg).toContain("viewBox=");
      const res = await api<Answer>("PATCH", `/api/v1/sites/${site.id}`, {
        headers: owner,
        body: { settings: { logo_svg: svg, favicon_svg: svg, ...logoDoc(svg, svg) } },
      });
      expect(res.status, slug).toBe(200);
      const s = res.body.settings as Record<string, unknown> & LogoRead;
      expect([s.logo_svg, s.favicon_svg, s.logo.light.svg_markup, s.logo.dark.svg_markup], slug).toEqual([
        svg,
        svg,
        svg,
        svg,
      ]);
    }
  });

  it("the 32 KiB limit through the route: exactly 32,768 bytes stored as sent, one byte more refused", async () => {
    const { site, owner } = await makeSite();
    const sized = (bytes: number) => {
      const head = '<svg xmlns="http://www.w3.org/2000/svg"><desc>';
      const tail = "</desc></svg>";
      return `${head}${"é".repeat(Math.floor((bytes - head.length - tail.length) / 2))}${"a".repeat((bytes - head.length - tail.length) % 2)}${tail}`;
    };
    const atLimit = sized(SVG_MAX_BYTES);
    expect(new TextEncoder().encode(atLimit).byteLength).toBe(32 * 1024);
    const ok = await api<Answer>("PATCH", `/api/v1/sites/${site.id}`, {
      headers: owner,
      body: { settings: { favicon_svg: atLimit } },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.settings.favicon_svg).toBe(atLimit);
    const over = sized(SVG_MAX_BYTES + 1);
    expect(new TextEncoder().encode(over).byteLength).toBe(32 * 1024 + 1);
    expect(await patchSvg(site, owner, over, "one byte over", FAVICON_SVG)).toBe("refused");
  });

  it("sending the stored clean markup back changes nothing (idempotent through the route)", async () => {
    const { site, owner } = await makeSite();
    const dirty =
      '<?xml version="1.0"?><!DOCTYPE svg><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 8 8" onload="x()"><script>y()</script><path d="M0 0h8v8H0z"/></svg>';
    const first = await api<Answer>("PATCH", `/api/v1/sites/${site.id}`, {
      headers: owner,
      body: { settings: { logo_svg: dirty } },
    });
    const clean = first.body.settings.logo_svg as string;
    expect(clean).toBe(
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 8 8"><path d="M0 0h8v8H0z"/></svg>',
    );
    const second = await api<Answer>("PATCH", `/api/v1/sites/${site.id}`, {
      headers: owner,
      body: { settings: { logo_svg: clean } },
    });
    expect(second.body.settings.logo_svg).toBe(clean);
  });
});
