import { describe, expect, it } from "vitest";
import {
  expectValid,
  expectViolation,
  internalImageUnit,
  internalTextUnit,
} from "../support/settings-fixtures";

type Unit = Record<string, unknown> & { creative: Record<string, unknown> };

function withUnit(
  change: (unit: Unit) => void,
  base: (id: string) => Record<string, unknown> = internalImageUnit,
) {
  const unit = base("unit-under-test") as Unit;
  change(unit);
  return { ads: { units: [internalTextUnit(), unit] } };
}

const CREATIVE = "settings.ads.units[1].creative";

describe("settings.ads", () => {
  it("internal image and text units and units of other types pass unchanged", () => {
    const doc = {
      ads: {
        enabled: true,
        anything: { nested: true },
        units: [
          internalImageUnit(),
          internalTextUnit(),
          { id: "net", type: "adsense", client: "ca-pub-1", size: [300, 250] },
        ],
      },
    };
    expect(expectValid(doc)).toEqual(doc);
    expectValid({ ads: {} });
    expectValid({ ads: null });
    expectValid({ ads: { units: [] } });
  });

  it("unknown keys are tolerated at ads, unit and creative level", () => {
    expectValid({
      ads: {
        foo: 1,
        units: [
          {
            ...internalImageUnit(),
            foo: 2,
            creative: { ...(internalImageUnit().creative as object), foo: 3 },
          },
        ],
      },
    });
  });

  describe("ADS_UNIT_INVALID_SHAPE", () => {
    it("ads not an object, units not an array, a unit not an object", () => {
      expectViolation({ ads: [] }, "ADS_UNIT_INVALID_SHAPE", "settings.ads");
      expectViolation({ ads: { units: {} } }, "ADS_UNIT_INVALID_SHAPE", "settings.ads.units");
      expectViolation(
        { ads: { units: [internalTextUnit(), "x"] } },
        "ADS_UNIT_INVALID_SHAPE",
        "settings.ads.units[1]",
      );
    });

    it("unit id: a string 1..64, unique", () => {
      expectValid(
        withUnit((u) => {
          u.id = "a".repeat(64);
        }),
      );
      expectViolation(
        withUnit((u) => {
          u.id = "a".repeat(65);
        }),
        "ADS_UNIT_INVALID_SHAPE",
        "settings.ads.units[1].id",
      );
      expectViolation(
        withUnit((u) => {
          u.id = "";
        }),
        "ADS_UNIT_INVALID_SHAPE",
        "settings.ads.units[1].id",
      );
      expectViolation(
        withUnit((u) => {
          u.id = 7;
        }),
        "ADS_UNIT_INVALID_SHAPE",
        "settings.ads.units[1].id",
      );
      expectViolation(
        withUnit((u) => {
          u.id = "text-1";
        }),
        "ADS_UNIT_INVALID_SHAPE",
        "settings.ads.units[1].id",
      );
    });

    it("100 units pass, 101 are refused", () => {
      const units = (n: number) => Array.from({ length: n }, (_, i) => internalTextUnit(`u${i}`));
      expectValid({ ads: { units: units(100) } });
      expectViolation({ ads: { units: units(101) } }, "ADS_UNIT_INVALID_SHAPE", "settings.ads.units");
    });
  });

  it("ADS_UNIT_HTML_RETIRED: a unit of type html", () => {
    expectViolation(
      { ads: { units: [{ id: "old", type: "html", html: "<div>ad</div>" }] } },
      "ADS_UNIT_HTML_RETIRED",
      "settings.ads.units[0].type",
    );
    expectViolation(
      { ads: { units: [internalTextUnit(), { type: "html" }] } },
      "ADS_UNIT_HTML_RETIRED",
      "settings.ads.units[1].type",
    );
  });

  describe("ADS_UNIT_MARKUP_FORBIDDEN: key html in any unit", () => {
    it("at unit level, of any type", () => {
      expectViolation(
        withUnit((u) => {
          u.html = "<b>x</b>";
        }),
        "ADS_UNIT_MARKUP_FORBIDDEN",
        "settings.ads.units[1].html",
      );
      expectViolation(
        { ads: { units: [{ id: "net", type: "adsense", html: "<script></script>" }] } },
        "ADS_UNIT_MARKUP_FORBIDDEN",
        "settings.ads.units[0].html",
      );
      expectViolation(
        { ads: { units: [{ html: "" }] } },
        "ADS_UNIT_MARKUP_FORBIDDEN",
        "settings.ads.units[0].html",
      );
    });

    it("nested inside the unit, and whatever the key's case", () => {
      expectViolation(
        withUnit((u) => {
          u.creative.html = "<b>x</b>";
        }),
        "ADS_UNIT_MARKUP_FORBIDDEN",
        `${CREATIVE}.html`,
      );
      expectViolation(
        withUnit((u) => {
          u.variants = [{ HTML: "<i>" }];
        }),
        "ADS_UNIT_MARKUP_FORBIDDEN",
        "settings.ads.units[1].variants[0].HTML",
      );
    });

    it("also outside units anywhere under settings.ads", () => {
      expectViolation({ ads: { html: "<div></div>" } }, "ADS_UNIT_MARKUP_FORBIDDEN", "settings.ads.html");
      expectViolation(
        { ads: { fallback: { html: "<div></div>" } } },
        "ADS_UNIT_MARKUP_FORBIDDEN",
        "settings.ads.fallback.html",
      );
    });
  });

  describe("internal creatives", () => {
    it("ADS_UNIT_CREATIVE_INVALID: creative missing or not an object", () => {
      expectViolation(
        withUnit((u) => {
          delete (u as Record<string, unknown>).creative;
        }),
        "ADS_UNIT_CREATIVE_INVALID",
        CREATIVE,
      );
      expectViolation(
        withUnit((u) => {
          (u as Record<string, unknown>).creative = "banner";
        }),
        "ADS_UNIT_CREATIVE_INVALID",
        CREATIVE,
      );
    });

    it("ADS_UNIT_UNKNOWN_KIND: creative.kind not image or text", () => {
      for (const kind of ["video", "html", "IMAGE", "", undefined, 1]) {
        expectViolation(
          withUnit((u) => {
            u.creative.kind = kind;
          }),
          "ADS_UNIT_UNKNOWN_KIND",
          `${CREATIVE}.kind`,
        );
      }
    });

    it.each(["target_url", "width", "height", "image_url", "image_alt"])(
      "ADS_UNIT_CREATIVE_INVALID: image creative without %s",
      (key) => {
        expectViolation(
          withUnit((u) => {
            delete u.creative[key];
          }),
          "ADS_UNIT_CREATIVE_INVALID",
          `${CREATIVE}.${key}`,
        );
      },
    );

    it.each(["target_url", "width", "height", "headline"])(
      "ADS_UNIT_CREATIVE_INVALID: text creative without %s",
      (key) => {
        expectViolation(
          withUnit((u) => {
            delete u.creative[key];
          }, internalTextUnit),
          "ADS_UNIT_CREATIVE_INVALID",
          `${CREATIVE}.${key}`,
        );
      },
    );

    it.each(["width", "height"])("ADS_UNIT_CREATIVE_INVALID: %s is an integer 1..4096", (key) => {
      for (const ok of [1, 4096])
        expectValid(
          withUnit((u) => {
            u.creative[key] = ok;
          }),
        );
      for (const bad of [0, 4097, 2.5, "300"]) {
        expectViolation(
          withUnit((u) => {
            u.creative[key] = bad;
          }),
          "ADS_UNIT_CREATIVE_INVALID",
          `${CREATIVE}.${key}`,
        );
      }
    });

    it("ADS_UNIT_CREATIVE_INVALID: image_alt 1..200, headline 1..120", () => {
      expectValid(
        withUnit((u) => {
          u.creative.image_alt = "a".repeat(200);
        }),
      );
      expectViolation(
        withUnit((u) => {
          u.creative.image_alt = "a".repeat(201);
        }),
        "ADS_UNIT_CREATIVE_INVALID",
        `${CREATIVE}.image_alt`,
      );
      expectViolation(
        withUnit((u) => {
          u.creative.image_alt = " ";
        }),
        "ADS_UNIT_CREATIVE_INVALID",
        `${CREATIVE}.image_alt`,
      );
      expectValid(
        withUnit((u) => {
          u.creative.headline = "h".repeat(120);
        }, internalTextUnit),
      );
      expectViolation(
        withUnit((u) => {
          u.creative.headline = "h".repeat(121);
        }, internalTextUnit),
        "ADS_UNIT_CREATIVE_INVALID",
        `${CREATIVE}.headline`,
      );
      expectViolation(
        withUnit((u) => {
          u.creative.headline = "";
        }, internalTextUnit),
        "ADS_UNIT_CREATIVE_INVALID",
        `${CREATIVE}.headline`,
      );
    });

    it("a text creative may carry an image", () => {
      expectValid(
        withUnit((u) => {
          u.creative.image_url = "https://img.example.com/t.png";
          u.creative.image_alt = "t";
        }, internalTextUnit),
      );
    });

    it.each(["image_url", "target_url"])(
      "ADS_UNIT_CREATIVE_URL_INVALID: %s not https with a path, nor a site path",
      (key) => {
        for (const url of [
          "http://shop.example.com/sale",
          "https://shop.example.com",
          "javascript:alert(1)",
          "data:image/png;base64,AAAA",
          "//shop.example.com/sale",
          "https://shop.example.com/a b",
          'https://shop.example.com/"><script>',
          "sale",
        ]) {
          expectViolation(
            withUnit((u) => {
              u.creative[key] = url;
            }),
            "ADS_UNIT_CREATIVE_URL_INVALID",
            `${CREATIVE}.${key}`,
          );
        }
        for (const url of ["https://shop.example.com/", "https://shop.example.com/x?utm=1", "/promo"]) {
          expectValid(
            withUnit((u) => {
              u.creative[key] = url;
            }),
          );
        }
      },
    );

    it("units of other types are not held to the internal creative rules", () => {
      expectValid({
        ads: { units: [{ id: "x", type: "network", creative: { kind: "video", target_url: "http://x" } }] },
      });
    });
  });
});
