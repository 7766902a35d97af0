import { describe, expect, it } from "vitest";
import { ALLOWED_ATTRIBUTES, ALLOWED_ELEMENTS } from "../../src/lib/svg/policy";
import { MAX_TOTAL_EXPANSION } from "../../src/lib/svg/use-graph";
import { SVG_MAX_BYTES, sanitizeSvg, sanitizeSvgMarkup } from "../../src/lib/svg-sanitizer";
import { legitimateVectors } from "../fixtures/svg-vectors/legitimate";
import { maliciousVectors } from "../fixtures/svg-vectors/malicious";
import { testCorpora } from "../support/corpora-binding";
import { scriptCapable } from "../support/sites-svg-judge";

function expectSafeAndStable(input: string, label: string): void {
  const first = sanitizeSvgMarkup(input);
  if (!first.ok) return;
  expect(scriptCapable(first.svg), label).toEqual([]);
  expect(sanitizeSvgMarkup(first.svg), `${label} (second pass)`).toEqual(first);
}

describe("sanitizeSvg: the checker itself", () => {
  it("flags what it is meant to flag", () => {
    expect(scriptCapable("<svg><script>alert(1)</script></svg>")).not.toEqual([]);
    expect(scriptCapable('<svg><a href="&#x6A;avascript:x">a</a></svg>')).not.toEqual([]);
    expect(scriptCapable('<svg><g OnLoad="x"/></svg>')).not.toEqual([]);
    expect(scriptCapable('<svg><use href="https://e.test/a.svg#x"/></svg>')).not.toEqual([]);
    expect(scriptCapable('<svg><image href="data:image/svg+xml,x"/></svg>')).not.toEqual([]);
    expect(scriptCapable("<svg><style>@\\69mport 'x'</style></svg>")).not.toEqual([]);
    expect(scriptCapable('<svg><rect fill="url(https://e.test/p)"/></svg>')).not.toEqual([]);
    expect(scriptCapable("<svg><![CDATA[><img src=x onerror=alert(1)>]]></svg>")).not.toEqual([]);
    expect(scriptCapable("<!DOCTYPE svg><svg/>")).not.toEqual([]);
    expect(scriptCapable('<svg><animate attributeName="href"/></svg>')).not.toEqual([]);
    expect(scriptCapable('<svg><rect fill="url(#a)"/><text>a &lt;b&gt;</text></svg>')).toEqual([]);
  });
});

describe("sanitizeSvg: the allowlist", () => {
  it("lists no script-capable element and no event-handler attribute", () => {
    const banned = [
      "script",
      "foreignObject",
      "iframe",
      "link",
      "animate",
      "set",
      "animateMotion",
      "animateTransform",
      "animateColor",
      "mpath",
      "discard",
      "handler",
      "listener",
      "feImage",
      "cursor",
    ];
    expect(banned.filter((e) => ALLOWED_ELEMENTS.has(e))).toEqual([]);
    expect([...ALLOWED_ATTRIBUTES].filter((a) => a.startsWith("on"))).toEqual([]);
    expect(
      ["name", "xml:base", "attributename", "to", "from", "begin", "target"].filter((a) =>
        ALLOWED_ATTRIBUTES.has(a),
      ),
    ).toEqual([]);
  });
});

describe("sanitizeSvg: public attack corpora", () => {
  it("every svg-sanitizer malicious file comes out without anything script-capable, and stable", () => {
    const files = testCorpora().svgMalicious;
    expect(files.length).toBeGreaterThan(10);
    let cleaned = 0;
    for (const { name, svg } of files) {
      const limited = sanitizeSvg(svg);
      if (new TextEncoder().encode(svg).byteLength > SVG_MAX_BYTES) {
        expect(limited, name).toEqual({ ok: false, reason: "too_large" });
      } else {
        expect(limited, name).toEqual(sanitizeSvgMarkup(svg));
      }
      // The rules themselves, without the size limit, so the 1.5 MB use bomb is exercised too.
      const result = sanitizeSvgMarkup(svg);
      if (result.ok) cleaned++;
      expectSafeAndStable(svg, name);
    }
    // Most of them are repairable, not simply refused.
    expect(cleaned).toBeGreaterThanOrEqual(files.length - 2);
  });

  it("every DOMPurify payload that contains <svg is refused or made harmless, whole and as its <svg> fragment", () => {
    const payloads = testCorpora().xss.filter((x) => /<svg/i.test(x.payload));
    expect(payloads.length).toBeGreaterThan(20);
    let cleaned = 0;
    for (const { title, payload } of payloads) {
      const start = payload.search(/<svg/i);
      const tail = payload.slice(start);
      const end = tail.search(/<\/svg>/i);
      const fragment = end === -1 ? tail : tail.slice(0, end + "</svg>".length);
      for (const input of [payload, fragment]) {
        const result = sanitizeSvg(input);
        if (result.ok) cleaned++;
        expectSafeAndStable(input, `${title}: ${input.slice(0, 80)}`);
      }
    }
    expect(cleaned).toBeGreaterThan(20);
  });

  it("specific corpus outcomes: entities never expanded, use loops and bombs pruned", () => {
    const byName = new Map(testCorpora().svgMalicious.map((f) => [f.name, f.svg]));
    const entity = sanitizeSvg(byName.get("entityTest.svg") ?? "");
    expect(entity).toEqual({
      ok: true,
      svg: '<svg xmlns="http://www.w3.org/2000/svg">\n\t<text x="0" y="20" font-size="20"></text>\n</svg>',
    });
    const loop = sanitizeSvg(byName.get("xlinkLoopTest.svg") ?? "");
    expect(loop.ok && loop.svg.includes("<use")).toBe(false);
    const dos = sanitizeSvg(byName.get("useDosTest.svg") ?? "");
    expect(dos.ok).toBe(true);
    const use = sanitizeSvg(byName.get("useTest.svg") ?? "");
    expect(use.ok && use.svg).toContain('<use xlink:href="#a" x="28" fill="#1A374D"/>');
    expect(use.ok && use.svg).not.toContain("defs.svg");
  });
});

describe("sanitizeSvg: legitimate SVG passes unchanged", () => {
  it("every simple-icons icon within 32 KiB comes back byte-for-byte; larger ones are too_large", () => {
    const icons = testCorpora().simpleIcons;
    expect(icons.length).toBeGreaterThan(3000);
    const changed: string[] = [];
    for (const { slug, svg } of icons) {
      const big = new TextEncoder().encode(svg).byteLength > SVG_MAX_BYTES;
      const result = sanitizeSvg(svg);
      if (big) expect(result, slug).toEqual({ ok: false, reason: "too_large" });
      else if (!result.ok || result.svg !== svg) changed.push(slug);
      // Without the size limit every icon, the oversized ones included, passes the rules untouched.
      const rules = sanitizeSvgMarkup(svg);
      if (!rules.ok || rules.svg !== svg) changed.push(`${slug} (rules)`);
    }
    expect(changed).toEqual([]);
  });

  for (const { name, svg } of legitimateVectors) {
    it(`keeps byte-for-byte: ${name}`, () => {
      expect(sanitizeSvg(svg)).toEqual({ ok: true, svg });
    });
  }
});

describe("sanitizeSvg: own malicious vectors", () => {
  it("has at least 25 distinct tricks", () => {
    expect(new Set(maliciousVectors.map((v) => v.name)).size).toBeGreaterThanOrEqual(25);
  });

  for (const v of maliciousVectors) {
    it(v.name, () => {
      const result = sanitizeSvg(v.svg);
      if (v.expect !== "ok") {
        expect(result).toEqual({ ok: false, reason: v.expect });
        return;
      }
      expect(result.ok).toBe(true);
      const out = result.ok ? result.svg : "";
      expect(scriptCapable(out)).toEqual([]);
      expect(sanitizeSvg(out)).toEqual(result);
      for (const k of v.keeps ?? []) expect(out).toContain(k);
      for (const d of v.drops ?? []) expect(out).not.toContain(d);
    });
  }
});

describe("sanitizeSvg: what is removed", () => {
  it("drops the XML prologue and keeps a trailing newline", () => {
    const body = '<svg xmlns="http://www.w3.org/2000/svg"><path d="M0 0h1"/></svg>\n';
    const input = `\uFEFF<?xml version="1.0" encoding="UTF-8"?>\n<!-- generator -->\n<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n${body}<!-- tail -->`;
    expect(sanitizeSvg(input)).toEqual({ ok: true, svg: body });
  });

  it("removes only the offending attribute, with its leading whitespace", () => {
    expect(sanitizeSvg('<svg>\n  <rect\n    onclick="x()"\n    width="1" />\n</svg>')).toEqual({
      ok: true,
      svg: '<svg>\n  <rect\n    width="1" />\n</svg>',
    });
  });

  it("turns CDATA that holds markup characters into escaped text, keeps plain CDATA", () => {
    expect(
      sanitizeSvg("<svg><text><![CDATA[a<b & c>d]]></text><text><![CDATA[plain]]></text></svg>"),
    ).toEqual({
      ok: true,
      svg: "<svg><text>a&lt;b &amp; c&gt;d</text><text><![CDATA[plain]]></text></svg>",
    });
  });

  it("cutting a node out of text never creates ]]> (output stays well-formed and stable)", () => {
    const result = sanitizeSvg("<svg><text>]]<!-- x -->>a]<b/>]>z</text></svg>");
    expect(result).toEqual({ ok: true, svg: "<svg><text>]]&gt;a]]&gt;z</text></svg>" });
    expect(sanitizeSvg(result.ok ? result.svg : "")).toEqual(result);
  });

  it("drops undeclared entity references from text instead of expanding them", () => {
    expect(sanitizeSvg("<svg><title>A&nbsp;B &amp; C</title></svg>")).toEqual({
      ok: true,
      svg: "<svg><title>AB &amp; C</title></svg>",
    });
  });

  it("refuses the whole SVG when all uses together would instantiate too many elements", () => {
    // 30 groups of 10 uses of a 40-element group (each use 41 elements, below the per-use limit),
    // 300 uses in all: above the total limit.
    const big = `<g id="t">${'<rect width="1" height="1"/>'.repeat(39)}</g>`;
    const uses = `<g>${'<use href="#t"/>'.repeat(10)}</g>`.repeat(30);
    const svg = `<svg><defs>${big}</defs>${uses}</svg>`;
    expect(41 * 300).toBeLessThan(MAX_TOTAL_EXPANSION);
    expect(sanitizeSvg(svg).ok).toBe(true);
    const bigger = `<svg><defs>${big}</defs>${uses.repeat(2)}</svg>`;
    expect(41 * 600).toBeGreaterThan(MAX_TOTAL_EXPANSION);
    expect(sanitizeSvg(bigger)).toEqual({ ok: false, reason: "too_large" });
  });
});

describe("sanitizeSvg: the 32 KiB limit", () => {
  const frame = (filler: string) => `<svg><desc>${filler}</desc></svg>`;
  const overhead = frame("").length;

  it("accepts exactly 32 KiB and below", () => {
    const at = frame("a".repeat(SVG_MAX_BYTES - overhead));
    expect(new TextEncoder().encode(at).byteLength).toBe(SVG_MAX_BYTES);
    expect(sanitizeSvg(at)).toEqual({ ok: true, svg: at });
    const below = frame("a".repeat(SVG_MAX_BYTES - overhead - 1));
    expect(sanitizeSvg(below)).toEqual({ ok: true, svg: below });
  });

  it("refuses one byte above", () => {
    const above = frame("a".repeat(SVG_MAX_BYTES - overhead + 1));
    expect(sanitizeSvg(above)).toEqual({ ok: false, reason: "too_large" });
  });

  it("counts UTF-8 bytes, not characters", () => {
    // "é" is 2 bytes: fewer characters than the limit, more bytes.
    const chars = Math.floor((SVG_MAX_BYTES - overhead) / 2) + 1;
    const multibyte = frame("é".repeat(chars));
    expect(multibyte.length).toBeLessThan(SVG_MAX_BYTES);
    expect(sanitizeSvg(multibyte)).toEqual({ ok: false, reason: "too_large" });
    const fits = frame("é".repeat(chars - 1));
    expect(sanitizeSvg(fits)).toEqual({ ok: true, svg: fits });
  });
});

describe("sanitizeSvg: input that is not an SVG document", () => {
  const cases: [string, string, "not_svg" | "malformed"][] = [
    ["empty string", "", "not_svg"],
    ["whitespace", "  \n ", "not_svg"],
    ["plain text", "hello", "not_svg"],
    ["JSON", '{"svg":"<svg/>"}', "not_svg"],
    ["HTML document", "<!doctype html><html><body><svg></svg></body></html>", "not_svg"],
    ["PNG magic", "\u0089PNG\r\n\u001a\n", "malformed"],
    ["prefixed root", '<svg:svg xmlns:svg="http://www.w3.org/2000/svg"/>', "not_svg"],
    ["text before the root", "a<svg></svg>", "not_svg"],
    ["only a prologue", '<?xml version="1.0"?><!-- x -->', "not_svg"],
    ["unclosed root", "<svg><g></g>", "malformed"],
    ["mismatched end tag", "<svg><g></svg></g>", "malformed"],
    ["end tag in another case", "<svg><g></G></svg>", "malformed"],
    ["unterminated comment", "<svg><!-- x </svg>", "malformed"],
    ["unterminated CDATA", "<svg><![CDATA[ x </svg>", "malformed"],
    ["unterminated attribute", '<svg width="1></svg>', "malformed"],
    ["unquoted attribute", "<svg width=1></svg>", "malformed"],
    ["duplicate attribute", '<svg width="1" width="2"></svg>', "malformed"],
    ["attributes without whitespace", '<svg width="1"height="2"></svg>', "malformed"],
    ["bare ampersand", "<svg><text>a & b</text></svg>", "malformed"],
    ["ampersand without semicolon", "<svg><text>&amp b</text></svg>", "malformed"],
    ["invalid character reference", "<svg><text>&#0;</text></svg>", "malformed"],
    ["]]> in text", "<svg><text>]]></text></svg>", "malformed"],
    ["lone surrogate", "<svg><text>\uD800</text></svg>", "malformed"],
    ["two roots", "<svg></svg><svg></svg>", "malformed"],
    ["unterminated DOCTYPE", '<!DOCTYPE svg [<!ENTITY a "b"', "malformed"],
  ];
  for (const [label, input, reason] of cases) {
    it(`${label} -> ${reason}`, () => {
      expect(sanitizeSvg(input)).toEqual({ ok: false, reason });
    });
  }

  it("nesting deeper than the parser allows is malformed, not a stack overflow", () => {
    const deep = `<svg>${"<g>".repeat(1000)}${"</g>".repeat(1000)}</svg>`;
    expect(sanitizeSvg(deep)).toEqual({ ok: false, reason: "malformed" });
    const fine = `<svg>${"<g>".repeat(200)}${"</g>".repeat(200)}</svg>`;
    expect(sanitizeSvg(fine)).toEqual({ ok: true, svg: fine });
  });

  it("never throws on garbled input (truncations and random byte soup)", () => {
    const samples = [...legitimateVectors.map((v) => v.svg), ...maliciousVectors.map((v) => v.svg)];
    let seed = 42;
    const random = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed / 0x7fffffff;
    };
    const alphabet = [
      "<",
      ">",
      "/",
      '"',
      "'",
      "&",
      ";",
      "#",
      "[",
      "]",
      "!",
      "-",
      "?",
      "=",
      " ",
      "svg",
      "a",
      "x",
    ];
    for (const s of samples) {
      for (let cut = 0; cut < s.length; cut += 7) {
        const truncated = s.slice(0, cut);
        expect(() => sanitizeSvg(truncated)).not.toThrow();
        expectSafeAndStable(truncated, `truncated at ${cut}`);
      }
      for (let n = 0; n < 20; n++) {
        const at = Math.floor(random() * s.length);
        const junk = alphabet[Math.floor(random() * alphabet.length)] ?? "";
        const mutated = s.slice(0, at) + junk + s.slice(at + Math.floor(random() * 3));
        expect(() => sanitizeSvg(mutated)).not.toThrow();
        expectSafeAndStable(mutated, `mutated: ${mutated.slice(0, 60)}`);
      }
    }
    // Non-string input from an untyped JSON body is refused, not thrown on.
    expect(sanitizeSvg(42 as unknown as string)).toEqual({ ok: false, reason: "not_svg" });
  });
});
