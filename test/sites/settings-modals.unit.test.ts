import { describe, expect, it } from "vitest";
import {
  everyKindOfModal,
  expectValid,
  expectViolation,
  FORM_ULID,
  formModal,
  internalImageUnit,
} from "../support/settings-fixtures";

type Modal = Record<string, unknown> & {
  content: Record<string, unknown>;
  rules: Record<string, unknown> & {
    trigger: Record<string, unknown>;
    pages: Record<string, unknown>;
    frequency: Record<string, unknown>;
    audience: Record<string, unknown>;
  };
};

/** Two modals; the second (index 1) is the one changed, so every path carries a real index. */
function withModal(change: (modal: Modal) => void): Record<string, unknown> {
  const modal = formModal("second") as Modal;
  change(modal);
  return { ads: { units: [internalImageUnit("house-1")] }, modals: [formModal("first"), modal] };
}

const M = "settings.modals[1]";

describe("settings.modals", () => {
  it("form, ad and text modals with full rules pass unchanged", () => {
    const doc = {
      ads: { units: [internalImageUnit("house-1")] },
      modals: [
        ...everyKindOfModal(),
        { id: "bare", title: "Only required fields", content: { kind: "text", text: "x" } },
      ],
    };
    expect(expectValid(doc)).toEqual(doc);
    expectValid({ modals: [] });
    expectValid({ modals: null });
  });

  it("MODALS_INVALID_SHAPE: not an array of objects", () => {
    expectViolation({ modals: {} }, "MODALS_INVALID_SHAPE", "settings.modals");
    expectViolation({ modals: "x" }, "MODALS_INVALID_SHAPE", "settings.modals");
    expectViolation({ modals: [formModal(), null] }, "MODALS_INVALID_SHAPE", "settings.modals[1]");
    expectViolation({ modals: [[formModal()]] }, "MODALS_INVALID_SHAPE", "settings.modals[0]");
  });

  it("MODALS_TOO_MANY: 10 pass, 11 are refused", () => {
    const modals = (n: number) => Array.from({ length: n }, (_, i) => formModal(`m${i}`));
    expectValid({ modals: modals(10) });
    expectViolation({ modals: modals(11) }, "MODALS_TOO_MANY", "settings.modals");
  });

  describe("MODALS_INVALID", () => {
    it("id: required, 1..64 characters", () => {
      expectValid(
        withModal((m) => {
          m.id = "a".repeat(64);
        }),
      );
      expectValid(
        withModal((m) => {
          m.id = "a";
        }),
      );
      for (const bad of ["a".repeat(65), "", undefined, 7, "has space", 'quote"', "<x>"]) {
        expectViolation(
          withModal((m) => {
            m.id = bad;
          }),
          "MODALS_INVALID",
          `${M}.id`,
        );
      }
    });

    it("id: unique", () => {
      expectViolation(
        withModal((m) => {
          m.id = "first";
        }),
        "MODALS_INVALID",
        `${M}.id`,
      );
    });

    it("title: required, 1..120 characters", () => {
      expectValid(
        withModal((m) => {
          m.title = "t";
        }),
      );
      expectValid(
        withModal((m) => {
          m.title = "t".repeat(120);
        }),
      );
      for (const bad of ["t".repeat(121), "", "   ", undefined, null, 3]) {
        expectViolation(
          withModal((m) => {
            m.title = bad;
          }),
          "MODALS_INVALID",
          `${M}.title`,
        );
      }
    });

    it("content: required object", () => {
      expectViolation(
        withModal((m) => {
          delete (m as Record<string, unknown>).content;
        }),
        "MODALS_INVALID",
        `${M}.content`,
      );
      expectViolation(
        withModal((m) => {
          (m as Record<string, unknown>).content = "hello";
        }),
        "MODALS_INVALID",
        `${M}.content`,
      );
    });

    it("enabled: boolean when present; rules: object when present", () => {
      expectViolation(
        withModal((m) => {
          m.enabled = "yes";
        }),
        "MODALS_INVALID",
        `${M}.enabled`,
      );
      expectViolation(
        withModal((m) => {
          (m as Record<string, unknown>).rules = [];
        }),
        "MODALS_INVALID",
        `${M}.rules`,
      );
    });

    it("content fields required by their kind", () => {
      expectViolation(
        withModal((m) => {
          m.content = { kind: "form" };
        }),
        "MODALS_INVALID",
        `${M}.content.form_id`,
      );
      expectViolation(
        withModal((m) => {
          m.content = { kind: "ad" };
        }),
        "MODALS_INVALID",
        `${M}.content.unit_id`,
      );
      expectViolation(
        withModal((m) => {
          m.content = { kind: "text" };
        }),
        "MODALS_INVALID",
        `${M}.content.text`,
      );
      expectViolation(
        withModal((m) => {
          m.content = { kind: "text", text: "" };
        }),
        "MODALS_INVALID",
        `${M}.content.text`,
      );
      expectValid(
        withModal((m) => {
          m.content = { kind: "text", text: "x".repeat(2000) };
        }),
      );
      expectViolation(
        withModal((m) => {
          m.content = { kind: "text", text: "x".repeat(2001) };
        }),
        "MODALS_INVALID",
        `${M}.content.text`,
      );
    });
  });

  describe("MODALS_UNKNOWN_FIELD: at every level", () => {
    const cases: [string, (m: Modal) => void, string][] = [
      [
        "modal",
        (m) => {
          m.style = "x";
        },
        `${M}.style`,
      ],
      [
        "content",
        (m) => {
          m.content.button = "Go";
        },
        `${M}.content.button`,
      ],
      [
        "content (a field of another kind)",
        (m) => {
          m.content.text = "hi";
        },
        `${M}.content.text`,
      ],
      [
        "rules",
        (m) => {
          m.rules.schedule = {};
        },
        `${M}.rules.schedule`,
      ],
      [
        "trigger",
        (m) => {
          m.rules.trigger.delay = 3;
        },
        `${M}.rules.trigger.delay`,
      ],
      [
        "trigger (a field of another kind)",
        (m) => {
          m.rules.trigger.percent = 30;
        },
        `${M}.rules.trigger.percent`,
      ],
      [
        "pages",
        (m) => {
          m.rules.pages.only = ["/"];
        },
        `${M}.rules.pages.only`,
      ],
      [
        "frequency",
        (m) => {
          m.rules.frequency.per_session = true;
        },
        `${M}.rules.frequency.per_session`,
      ],
      [
        "audience",
        (m) => {
          m.rules.audience.countries = ["BR"];
        },
        `${M}.rules.audience.countries`,
      ],
    ];
    it.each(cases)("%s", (_level, change, path) => {
      expectViolation(withModal(change), "MODALS_UNKNOWN_FIELD", path);
    });
  });

  it("unknown keys are reported before an unknown kind", () => {
    expectViolation(
      withModal((m) => {
        m.rules.trigger = { kind: "click", selector: "#x" };
      }),
      "MODALS_UNKNOWN_FIELD",
      `${M}.rules.trigger.selector`,
    );
    expectViolation(
      withModal((m) => {
        m.content = { kind: "html", body: "x" };
      }),
      "MODALS_UNKNOWN_FIELD",
      `${M}.content.body`,
    );
  });

  describe("MODALS_MARKUP_FORBIDDEN: key html at any level", () => {
    const cases: [string, (m: Modal) => void, string][] = [
      [
        "modal",
        (m) => {
          m.html = "<b>x</b>";
        },
        `${M}.html`,
      ],
      [
        "content",
        (m) => {
          m.content = { kind: "text", text: "x", html: "<b>x</b>" };
        },
        `${M}.content.html`,
      ],
      [
        "rules",
        (m) => {
          m.rules.html = "";
        },
        `${M}.rules.html`,
      ],
      [
        "trigger",
        (m) => {
          m.rules.trigger.html = "<i>";
        },
        `${M}.rules.trigger.html`,
      ],
      [
        "audience (any case)",
        (m) => {
          m.rules.audience.HTML = "<i>";
        },
        `${M}.rules.audience.HTML`,
      ],
      [
        "deep inside an unknown field",
        (m) => {
          m.extra = { a: [{ html: "x" }] };
        },
        `${M}.extra.a[0].html`,
      ],
    ];
    it.each(cases)("%s", (_level, change, path) => {
      expectViolation(withModal(change), "MODALS_MARKUP_FORBIDDEN", path);
    });
  });

  it("MODALS_CONTENT_UNKNOWN_KIND: content.kind not form, ad or text", () => {
    for (const kind of ["html", "video", "Form", "", undefined, 1]) {
      expectViolation(
        withModal((m) => {
          m.content = { kind };
        }),
        "MODALS_CONTENT_UNKNOWN_KIND",
        `${M}.content.kind`,
      );
    }
  });

  it("MODALS_CONTENT_REF_UNKNOWN: content.unit_id matches no settings.ads.units[].id", () => {
    expectValid(
      withModal((m) => {
        m.content = { kind: "ad", unit_id: "house-1" };
      }),
    );
    expectViolation(
      withModal((m) => {
        m.content = { kind: "ad", unit_id: "house-2" };
      }),
      "MODALS_CONTENT_REF_UNKNOWN",
      `${M}.content.unit_id`,
    );
    expectViolation(
      withModal((m) => {
        m.content = { kind: "ad", unit_id: 1 };
      }),
      "MODALS_CONTENT_REF_UNKNOWN",
      `${M}.content.unit_id`,
    );
    expectViolation(
      { modals: [{ id: "a", title: "A", content: { kind: "ad", unit_id: "house-1" } }] },
      "MODALS_CONTENT_REF_UNKNOWN",
      "settings.modals[0].content.unit_id",
    );
  });

  it("MODALS_CONTENT_INVALID_ULID: content.form_id must be a 26-character ULID, not a UUID", () => {
    expectValid(
      withModal((m) => {
        m.content.form_id = FORM_ULID.toLowerCase();
      }),
    );
    for (const bad of [
      "0190f1b2-7c3d-7a4e-9f10-1a2b3c4d5e6f",
      `${FORM_ULID}0`,
      FORM_ULID.slice(0, 25),
      "01JD8X5Q7Z3M4N5P6R7S8T9V0U",
      "81JD8X5Q7Z3M4N5P6R7S8T9V0W",
      12,
    ]) {
      expectViolation(
        withModal((m) => {
          m.content.form_id = bad;
        }),
        "MODALS_CONTENT_INVALID_ULID",
        `${M}.content.form_id`,
      );
    }
  });

  it("MODALS_TRIGGER_UNKNOWN_KIND: rules.trigger.kind not delay, scroll or exit_intent", () => {
    for (const kind of ["click", "exit-intent", "", undefined]) {
      expectViolation(
        withModal((m) => {
          m.rules.trigger = { kind };
        }),
        "MODALS_TRIGGER_UNKNOWN_KIND",
        `${M}.rules.trigger.kind`,
      );
    }
  });

  it("MODALS_TRIGGER_INVALID: seconds 1..300", () => {
    for (const seconds of [1, 2, 299, 300])
      expectValid(
        withModal((m) => {
          m.rules.trigger = { kind: "delay", seconds };
        }),
      );
    for (const seconds of [0, 301, -5, 1.5, "10", undefined]) {
      expectViolation(
        withModal((m) => {
          m.rules.trigger = { kind: "delay", seconds };
        }),
        "MODALS_TRIGGER_INVALID",
        `${M}.rules.trigger.seconds`,
      );
    }
  });

  it("MODALS_TRIGGER_INVALID: percent 1..100", () => {
    for (const percent of [1, 100])
      expectValid(
        withModal((m) => {
          m.rules.trigger = { kind: "scroll", percent };
        }),
      );
    for (const percent of [0, 101, 50.5, "50", undefined]) {
      expectViolation(
        withModal((m) => {
          m.rules.trigger = { kind: "scroll", percent };
        }),
        "MODALS_TRIGGER_INVALID",
        `${M}.rules.trigger.percent`,
      );
    }
  });

  it("MODALS_TRIGGER_INVALID: trigger not an object", () => {
    expectViolation(
      withModal((m) => {
        (m.rules as Record<string, unknown>).trigger = "delay";
      }),
      "MODALS_TRIGGER_INVALID",
      `${M}.rules.trigger`,
    );
  });

  describe("MODALS_PAGES_INVALID", () => {
    it.each(["include", "exclude"])("%s: up to 20 patterns", (list) => {
      const patterns = (n: number) => Array.from({ length: n }, (_, i) => `/p${i}/*`);
      expectValid(
        withModal((m) => {
          m.rules.pages = { [list]: patterns(20) };
        }),
      );
      expectValid(
        withModal((m) => {
          m.rules.pages = { [list]: [] };
        }),
      );
      expectViolation(
        withModal((m) => {
          m.rules.pages = { [list]: patterns(21) };
        }),
        "MODALS_PAGES_INVALID",
        `${M}.rules.pages.${list}`,
      );
      expectViolation(
        withModal((m) => {
          m.rules.pages = { [list]: "/blog/*" };
        }),
        "MODALS_PAGES_INVALID",
        `${M}.rules.pages.${list}`,
      );
    });

    it.each(["include", "exclude"])("%s: each pattern 1..200 characters, starting with /, safe", (list) => {
      const at = (pattern: unknown) =>
        withModal((m) => {
          m.rules.pages = { [list]: ["/ok", pattern] };
        });
      for (const ok of ["/", `/${"a".repeat(199)}`, "/*/*/*/*/*", "/blog/2026/*", "/a b", "/%2e%2e"])
        expectValid(at(ok));
      for (const bad of [
        "",
        `/${"a".repeat(200)}`,
        "blog/*",
        "*",
        "/blog/../admin",
        "/..",
        "/a\\b",
        "/https://evil.test/",
        "/x://y",
        "/a\u0000",
        "/a\nb",
        "/a\u007f",
        "/a\u0085",
        "/*/*/*/*/*/*",
        "/******",
        3,
        null,
      ]) {
        expectViolation(at(bad), "MODALS_PAGES_INVALID", `${M}.rules.pages.${list}[1]`);
      }
    });

    it("pages not an object", () => {
      expectViolation(
        withModal((m) => {
          (m.rules as Record<string, unknown>).pages = ["/"];
        }),
        "MODALS_PAGES_INVALID",
        `${M}.rules.pages`,
      );
    });
  });

  describe("MODALS_FREQUENCY_INVALID", () => {
    const freq = (f: Record<string, unknown>) =>
      withModal((m) => {
        m.rules.frequency = f;
      });
    it("max_shows 1..50", () => {
      for (const ok of [1, 50]) expectValid(freq({ max_shows: ok, per: "days", days: 7 }));
      for (const bad of [0, 51, 2.5, "3", undefined]) {
        expectViolation(
          freq({ max_shows: bad, per: "days", days: 7 }),
          "MODALS_FREQUENCY_INVALID",
          `${M}.rules.frequency.max_shows`,
        );
      }
    });
    it("days 1..365", () => {
      for (const ok of [1, 365]) expectValid(freq({ max_shows: 1, per: "days", days: ok }));
      for (const bad of [0, 366, 1.5, "7", undefined]) {
        expectViolation(
          freq({ max_shows: 1, per: "days", days: bad }),
          "MODALS_FREQUENCY_INVALID",
          `${M}.rules.frequency.days`,
        );
      }
    });
    it("per: days is the only legal value (may be omitted)", () => {
      expectValid(freq({ max_shows: 1, days: 1 }));
      for (const bad of ["session", "day", "weeks", "", 1]) {
        expectViolation(
          freq({ max_shows: 1, per: bad, days: 1 }),
          "MODALS_FREQUENCY_INVALID",
          `${M}.rules.frequency.per`,
        );
      }
    });
    it("frequency not an object", () => {
      expectViolation(
        freq(3 as unknown as Record<string, unknown>),
        "MODALS_FREQUENCY_INVALID",
        `${M}.rules.frequency`,
      );
    });
  });

  describe("MODALS_AUDIENCE_INVALID", () => {
    const audience = (a: unknown) =>
      withModal((m) => {
        m.rules.audience = a as Record<string, unknown>;
      });
    it("devices: non-empty subset of desktop and mobile", () => {
      for (const ok of [["desktop"], ["mobile"], ["mobile", "desktop"]])
        expectValid(audience({ devices: ok }));
      for (const bad of [[], ["tablet"], ["desktop", "desktop"], "desktop", ["Desktop"], [null]]) {
        expectViolation(audience({ devices: bad }), "MODALS_AUDIENCE_INVALID", `${M}.rules.audience.devices`);
      }
    });
    it("new_visitors_only: boolean", () => {
      expectValid(audience({ new_visitors_only: false }));
      for (const bad of ["true", 1, "yes"]) {
        expectViolation(
          audience({ new_visitors_only: bad }),
          "MODALS_AUDIENCE_INVALID",
          `${M}.rules.audience.new_visitors_only`,
        );
      }
    });
    it("audience not an object", () => {
      expectViolation(audience(["desktop"]), "MODALS_AUDIENCE_INVALID", `${M}.rules.audience`);
    });
  });

  it("the first invalid modal in index order is reported", () => {
    const doc = {
      modals: [
        { ...formModal("a"), title: "" },
        { ...formModal("b"), html: "x" },
      ],
    };
    expectViolation(doc, "MODALS_INVALID", "settings.modals[0].title");
  });
});
