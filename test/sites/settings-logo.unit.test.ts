import { describe, expect, it } from "vitest";
import { CLEAN_SVG, expectValid, expectViolation, validLogo } from "../support/settings-fixtures";

type Logo = Record<string, unknown>;

function withLogo(change: (logo: Logo) => void): Record<string, unknown> {
  const logo = validLogo();
  change(logo);
  return { logo };
}

const ALL_SOURCES = [
  { type: "image/svg+xml", url: "https://img.example.com/l.svg" },
  { type: "image/avif", url: "https://img.example.com/l.avif" },
  { type: "image/webp", url: "https://img.example.com/l.webp" },
  { type: "image/png", url: "https://img.example.com/l.png" },
  { type: "image/jpeg", url: "https://img.example.com/l.jpg" },
];

describe("settings.logo: the logo contract (spec (d))", () => {
  it("a valid logo passes unchanged; no logo (absent or null) passes", () => {
    expect(expectValid({ logo: validLogo() })).toEqual({ logo: validLogo() });
    expect(expectValid({ logo: null })).toEqual({ logo: null });
  });

  it("legacy logo_svg and logo_url stay valid beside the logo contract", () => {
    const doc = { logo_svg: CLEAN_SVG, logo_url: "https://cdn.example.com/l.png", logo: validLogo() };
    expect(expectValid(doc)).toEqual(doc);
  });

  it("LOGO_INVALID_SHAPE: not an object, or an unknown field", () => {
    expectViolation({ logo: "https://img.example.com/l.png" }, "LOGO_INVALID_SHAPE", "settings.logo");
    expectViolation({ logo: [validLogo()] }, "LOGO_INVALID_SHAPE", "settings.logo");
    expectViolation(
      withLogo((l) => {
        l.src = "/l.png";
      }),
      "LOGO_INVALID_SHAPE",
      "settings.logo.src",
    );
  });

  it("LOGO_INVALID_VERSION: version must be 1", () => {
    for (const version of [2, 0, "1", 1.5, null, undefined]) {
      expectViolation(
        withLogo((l) => {
          l.version = version;
        }),
        "LOGO_INVALID_VERSION",
        "settings.logo.version",
      );
    }
  });

  it("LOGO_INVALID_ALT: up to 200 characters, empty means decorative, absent allowed", () => {
    expectValid(
      withLogo((l) => {
        l.alt = "";
      }),
    );
    expectValid(
      withLogo((l) => {
        delete l.alt;
      }),
    );
    expectValid(
      withLogo((l) => {
        l.alt = "a".repeat(200);
      }),
    );
    expectValid(
      withLogo((l) => {
        l.alt = `${"é".repeat(199)}😀`;
      }),
    );
    expectViolation(
      withLogo((l) => {
        l.alt = "a".repeat(201);
      }),
      "LOGO_INVALID_ALT",
      "settings.logo.alt",
    );
    expectViolation(
      withLogo((l) => {
        l.alt = 5;
      }),
      "LOGO_INVALID_ALT",
      "settings.logo.alt",
    );
    expectValid(
      withLogo((l) => {
        l.alt = null;
      }),
    );
  });

  it.each(["width", "height"])("LOGO_INVALID_SIZE: %s is an integer 8..2048, required", (key) => {
    for (const ok of [8, 9, 2047, 2048])
      expectValid(
        withLogo((l) => {
          l[key] = ok;
        }),
      );
    for (const bad of [7, 2049, 0, -8, 8.5, "120", null, undefined]) {
      expectViolation(
        withLogo((l) => {
          l[key] = bad;
        }),
        "LOGO_INVALID_SIZE",
        `settings.logo.${key}`,
      );
    }
  });

  it("LOGO_EMPTY_LIGHT: dark without light, or no variant at all", () => {
    expectViolation(
      withLogo((l) => {
        delete l.light;
      }),
      "LOGO_EMPTY_LIGHT",
      "settings.logo.light",
    );
    expectViolation(
      withLogo((l) => {
        l.light = null;
      }),
      "LOGO_EMPTY_LIGHT",
      "settings.logo.light",
    );
    expectViolation(
      withLogo((l) => {
        delete l.light;
        delete l.dark;
      }),
      "LOGO_EMPTY_LIGHT",
      "settings.logo.light",
    );
  });

  it("dark is optional: absent or null falls back to light", () => {
    expectValid(
      withLogo((l) => {
        delete l.dark;
      }),
    );
    expectValid(
      withLogo((l) => {
        l.dark = null;
      }),
    );
  });

  it("LOGO_INVALID_VARIANT: not an object, neither form, unknown field, empty or non-array sources", () => {
    expectViolation(
      withLogo((l) => {
        l.light = "/l.png";
      }),
      "LOGO_INVALID_VARIANT",
      "settings.logo.light",
    );
    expectViolation(
      withLogo((l) => {
        l.light = {};
      }),
      "LOGO_INVALID_VARIANT",
      "settings.logo.light",
    );
    expectViolation(
      withLogo((l) => {
        l.dark = { sources: null };
      }),
      "LOGO_INVALID_VARIANT",
      "settings.logo.dark",
    );
    expectViolation(
      withLogo((l) => {
        l.light = { sources: ALL_SOURCES.slice(0, 1), alt: "x" };
      }),
      "LOGO_INVALID_VARIANT",
      "settings.logo.light.alt",
    );
    expectViolation(
      withLogo((l) => {
        l.light = { sources: [] };
      }),
      "LOGO_INVALID_VARIANT",
      "settings.logo.light.sources",
    );
    expectViolation(
      withLogo((l) => {
        l.light = { sources: ALL_SOURCES[0] };
      }),
      "LOGO_INVALID_VARIANT",
      "settings.logo.light.sources",
    );
  });

  it("LOGO_MIXED_FORM: both forms in one variant", () => {
    expectViolation(
      withLogo((l) => {
        l.light = { svg_markup: CLEAN_SVG, sources: ALL_SOURCES.slice(0, 1) };
      }),
      "LOGO_MIXED_FORM",
      "settings.logo.light",
    );
  });

  it("LOGO_MIXED_FORM: light and dark in different forms, checked before the dark content", () => {
    expectViolation(
      withLogo((l) => {
        l.dark = { svg_markup: CLEAN_SVG };
      }),
      "LOGO_MIXED_FORM",
      "settings.logo.dark",
    );
    expectViolation(
      withLogo((l) => {
        l.light = { svg_markup: CLEAN_SVG };
        l.dark = { sources: [{ type: "image/png", url: "javascript:alert(1)" }] };
      }),
      "LOGO_MIXED_FORM",
      "settings.logo.dark",
    );
  });

  it("svg_markup in both variants passes; the markup is sanitized", () => {
    const hostile =
      '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script><path d="M0 0h1v1z"/></svg>';
    const out = expectValid(
      withLogo((l) => {
        l.light = { svg_markup: CLEAN_SVG };
        l.dark = { svg_markup: hostile };
      }),
    );
    const logo = out.logo as { light: { svg_markup: string }; dark: { svg_markup: string } };
    expect(logo.light.svg_markup).toBe(CLEAN_SVG);
    expect(logo.dark.svg_markup).not.toMatch(/script/i);
    expect(logo.dark.svg_markup).toContain("<path");
  });

  it("SETTINGS_INVALID_SVG: svg_markup that is not SVG, with the full path", () => {
    expectViolation(
      withLogo((l) => {
        l.light = { svg_markup: "<div>logo</div>" };
        delete l.dark;
      }),
      "SETTINGS_INVALID_SVG",
      "settings.logo.light.svg_markup",
    );
    expectViolation(
      withLogo((l) => {
        l.light = { svg_markup: CLEAN_SVG };
        l.dark = { svg_markup: 12 };
      }),
      "SETTINGS_INVALID_SVG",
      "settings.logo.dark.svg_markup",
    );
  });

  it("LOGO_INVALID_SOURCE: not an object, missing or non-string type or url, unknown field", () => {
    const cases: [unknown, string][] = [
      ["https://img.example.com/l.png", "settings.logo.light.sources[0]"],
      [{ url: "/l.png" }, "settings.logo.light.sources[0].type"],
      [{ type: "image/png" }, "settings.logo.light.sources[0].url"],
      [{ type: 1, url: "/l.png" }, "settings.logo.light.sources[0].type"],
      [{ type: "image/png", url: null }, "settings.logo.light.sources[0].url"],
      [
        { type: "image/png", url: "/l.png", media: "(min-width: 1px)" },
        "settings.logo.light.sources[0].media",
      ],
    ];
    for (const [source, path] of cases) {
      expectViolation(
        withLogo((l) => {
          l.light = { sources: [source] };
        }),
        "LOGO_INVALID_SOURCE",
        path,
      );
    }
  });

  it("LOGO_UNSUPPORTED_TYPE: only svg, avif, webp, png, jpeg", () => {
    for (const type of ["image/gif", "image/PNG", "image/jpg", "text/html", "image/svg"]) {
      expectViolation(
        withLogo((l) => {
          l.light = { sources: [ALL_SOURCES[0], { type, url: "/l.gif" }] };
        }),
        "LOGO_UNSUPPORTED_TYPE",
        "settings.logo.light.sources[1].type",
      );
    }
  });

  it("LOGO_DUPLICATE_TYPE: at most one source per format", () => {
    expectViolation(
      withLogo((l) => {
        l.dark = { sources: [ALL_SOURCES[3], ALL_SOURCES[0], { type: "image/png", url: "/b.png" }] };
      }),
      "LOGO_DUPLICATE_TYPE",
      "settings.logo.dark.sources[2].type",
    );
  });

  it("LOGO_TOO_MANY_SOURCES: 5 pass, 6 are refused", () => {
    expectValid(
      withLogo((l) => {
        l.light = { sources: ALL_SOURCES };
      }),
    );
    expectViolation(
      withLogo((l) => {
        l.light = { sources: [...ALL_SOURCES, { type: "image/png", url: "/x.png" }] };
      }),
      "LOGO_TOO_MANY_SOURCES",
      "settings.logo.light.sources",
    );
  });

  it("sources are stored in canonical order (svg, avif, webp, png, jpeg) whatever the input order", () => {
    const shuffled = [ALL_SOURCES[3], ALL_SOURCES[0], ALL_SOURCES[4], ALL_SOURCES[2], ALL_SOURCES[1]];
    const out = expectValid(
      withLogo((l) => {
        l.light = { sources: shuffled };
        l.dark = { sources: [ALL_SOURCES[4], ALL_SOURCES[2]] };
      }),
    );
    const logo = out.logo as { light: { sources: unknown[] }; dark: { sources: unknown[] } };
    expect(logo.light.sources).toEqual(ALL_SOURCES);
    expect(logo.dark.sources).toEqual([ALL_SOURCES[2], ALL_SOURCES[4]]);
  });

  it("SETTINGS_INVALID_ASSET_URL: source urls follow the strict rule, with the full field path in the message", () => {
    const refused = [
      "http://img.example.com/l.png",
      "https://img.example.com",
      "https://img.example.com?x=1",
      "javascript:alert(1)",
      "data:image/png;base64,AAAA",
      "//evil.test/l.png",
      "https://img.example.com/l .png",
      'https://img.example.com/l.png"',
      "https://user@img.example.com/l.png",
      "l.png",
    ];
    for (const url of refused) {
      expectViolation(
        withLogo((l) => {
          l.light = { sources: [ALL_SOURCES[0], { type: "image/png", url }] };
        }),
        "SETTINGS_INVALID_ASSET_URL",
        "settings.logo.light.sources[1].url",
      );
    }
    for (const url of ["https://img.example.com/", "https://img.example.com/a/b.png?v=1", "/l.png"]) {
      expectValid(
        withLogo((l) => {
          l.light = { sources: [{ type: "image/png", url }] };
        }),
      );
    }
  });

  it("the dark variant is checked with its own path", () => {
    expectViolation(
      withLogo((l) => {
        l.dark = { sources: [{ type: "image/png", url: "http://img.example.com/d.png" }] };
      }),
      "SETTINGS_INVALID_ASSET_URL",
      "settings.logo.dark.sources[0].url",
    );
  });
});
