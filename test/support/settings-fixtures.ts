/**
 * Settings documents and validator assertions for the sites settings tests (pure: they run in Node, in the
 * `unit` project, so nothing here may import a binding; the helpers that reach the sites worker from
 * content's tests are in settings-through-sites.ts).
 */
import { expect } from "vitest";
import { validateSettings } from "../../src/sites/site/settings/validate-settings";

/** A legitimate SVG the sanitizer keeps byte for byte. */
export const CLEAN_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path d="M0 0h24v24H0z"/></svg>';

export const FORM_ULID = "01JD8X5Q7Z3M4N5P6R7S8T9V0W";

/** Asserts the first violation: code, full path, and a message that starts with that path. */
export function expectViolation(settings: unknown, code: string, path: string): void {
  const result = validateSettings(settings);
  if (result.ok) expect.fail(`expected ${code} at ${path}, but the document passed`);
  expect(result.violation.code, result.violation.message).toBe(code);
  expect(result.violation.path, result.violation.message).toBe(path);
  expect(result.violation.message.startsWith(`${path}: `)).toBe(true);
}

export function expectValid(settings: unknown): Record<string, unknown> {
  const result = validateSettings(settings);
  if (!result.ok)
    expect.fail(`expected the document to pass, got ${result.violation.code}: ${result.violation.message}`);
  return result.settings;
}

export function internalImageUnit(id = "house-1"): Record<string, unknown> {
  return {
    id,
    type: "internal",
    slot: "sidebar",
    creative: {
      kind: "image",
      image_url: "https://img.example.com/ads/banner.png",
      image_alt: "Spring sale",
      target_url: "https://shop.example.com/sale",
      width: 300,
      height: 250,
    },
  };
}

export function internalTextUnit(id = "text-1"): Record<string, unknown> {
  return {
    id,
    type: "internal",
    creative: {
      kind: "text",
      headline: "Read our guide",
      target_url: "/guides/start",
      width: 728,
      height: 90,
    },
  };
}

export function formModal(id = "newsletter"): Record<string, unknown> {
  return {
    id,
    title: "Join the newsletter",
    enabled: true,
    content: { kind: "form", form_id: FORM_ULID },
    rules: {
      trigger: { kind: "delay", seconds: 10 },
      pages: { include: ["/blog/*"], exclude: ["/blog/private"] },
      frequency: { max_shows: 2, per: "days", days: 7 },
      audience: { devices: ["desktop", "mobile"], new_visitors_only: true },
    },
  };
}

/** A form, an ad (showing unit `house-1`) and a text modal, each with its own trigger. */
export function everyKindOfModal(): Record<string, unknown>[] {
  return [
    formModal(),
    {
      id: "promo",
      title: "Promo",
      content: { kind: "ad", unit_id: "house-1" },
      rules: { trigger: { kind: "scroll", percent: 50 } },
    },
    {
      id: "notice",
      title: "Notice",
      content: { kind: "text", text: "We <3 readers" },
      rules: { trigger: { kind: "exit_intent" } },
    },
  ];
}

export function validLogo(): Record<string, unknown> {
  return {
    version: 1,
    alt: "Acme",
    width: 120,
    height: 40,
    light: {
      sources: [
        { type: "image/svg+xml", url: "https://img.example.com/logo.svg" },
        { type: "image/webp", url: "https://img.example.com/logo.webp" },
        { type: "image/png", url: "/assets/logo.png" },
      ],
    },
    dark: { sources: [{ type: "image/png", url: "https://img.example.com/logo-dark.png" }] },
  };
}

/** A document that uses every validated area and many keys the validator passes through. */
export function fullSettings(): Record<string, unknown> {
  return {
    logo_svg: CLEAN_SVG,
    favicon_svg: CLEAN_SVG,
    logo_url: "https://cdn.example.com/logo.png",
    favicon_png_url: "/favicon.png",
    favicon_ico_url: "http://legacy.example.com/favicon.ico",
    favicon_kit: { "apple-touch-icon": "https://img.example.com/apple.png", icon_192: "/icons/192.png" },
    logo_media_id: null,
    seo: { default_og_image: "https://img.example.com/og.jpg", meta_title: "Acme" },
    logo: validLogo(),
    customization: {
      theme_base: "sepia",
      typography: {
        font_primary: "Inter, sans-serif",
        font_secondary: "Noto Serif JP",
        line_height: 1.5,
        letter_spacing: 0.02,
      },
      layout: { radius: 8 },
      colors: { bg: "#ffffff", text: "#111111", primary: "#0044cc", accent: "#cc2200" },
    },
    header: { model: "split-nav", cta: { label: "Subscribe", href: "/subscribe" } },
    footer: { model: "columns", cta: null },
    ads: {
      enabled: true,
      provider_note: "unknown keys are tolerated in ads",
      units: [
        internalImageUnit(),
        internalTextUnit(),
        { id: "net-1", type: "adsense", client: "ca-pub-1", slot: "123" },
      ],
    },
    modals: everyKindOfModal(),
    applets: {
      forms: { enabled: true, installed_at: "2026-01-01T00:00:00.000Z" },
      "legal-pages": { enabled: false, installed_at: null, options: { index: true } },
    },
    code_injection: { head: "<script>window.analytics = true</script>" },
    about_html:
      '<p>About us</p><img src="https://img.example.com/about.png" srcset="https://img.example.com/a1.png 1x, https://img.example.com/a2.png 2x" alt="">',
    legal: { perfil: "empresa", setor: "ecommerce" },
    menu: [{ label: "Home", href: "/" }],
    cookies: { banner: true },
  };
}
