import { describe, expect, it } from "vitest";
import {
  contrastFailure,
  contrastRatio,
  parseHexColor,
  relativeLuminance,
} from "../../src/sites/themes/contrast";

const rgb = (hex: string) => {
  const c = parseHexColor(hex);
  if (!c) throw new Error(hex);
  return c;
};
const ratio = (a: string, b: string) => contrastRatio(rgb(a), rgb(b));
const palette = (colors: Record<string, unknown>) => ({ customization: { colors } });
const OK = { bg: "#ffffff", text: "#000000", primary: "#0b57d0", accent: "#b3261e" };

describe("WCAG 2 relative luminance and contrast ratio", () => {
  it("matches the reference values", () => {
    expect(relativeLuminance(rgb("#ffffff"))).toBe(1);
    expect(relativeLuminance(rgb("#000000"))).toBe(0);
    expect(relativeLuminance(rgb("#ff0000"))).toBeCloseTo(0.2126, 4);
    expect(relativeLuminance(rgb("#00ff00"))).toBeCloseTo(0.7152, 4);
    expect(relativeLuminance(rgb("#0000ff"))).toBeCloseTo(0.0722, 4);
    expect(relativeLuminance(rgb("#808080"))).toBeCloseTo(0.2159, 4);
    expect(ratio("#000000", "#ffffff")).toBe(21);
    expect(ratio("#ffffff", "#ffffff")).toBe(1);
    // WebAIM's classic pair: #767676 on white is 4.54:1, the lightest gray passing AA text.
    expect(ratio("#767676", "#ffffff")).toBeCloseTo(4.54, 2);
    expect(ratio("#777777", "#ffffff")).toBeCloseTo(4.48, 2);
    expect(ratio("#ffffff", "#767676")).toBe(ratio("#767676", "#ffffff"));
  });

  it("reads #rgb and #rrggbb (any case); alpha, names and other forms are not colors here", () => {
    expect(parseHexColor("#abc")).toEqual([0xaa, 0xbb, 0xcc]);
    expect(parseHexColor("#A0B1C2")).toEqual([0xa0, 0xb1, 0xc2]);
    for (const bad of ["#abcd", "#a0b1c2ff", "red", "rgb(0,0,0)", "abc", "#ggg", "", null, 3]) {
      expect(parseHexColor(bad), String(bad)).toBeNull();
    }
  });
});

describe("contrast gate", () => {
  it("text on bg: 4.5:1 passes just above, fails just below", () => {
    expect(ratio("#555555", "#c9c9c9")).toBeGreaterThanOrEqual(4.5);
    expect(ratio("#555555", "#c9c9c9")).toBeLessThan(4.51);
    expect(
      contrastFailure(
        palette({ ...OK, bg: "#c9c9c9", text: "#555555", primary: "#000000", accent: "#000000" }),
      ),
    ).toBeNull();
    expect(ratio("#6d6d6d", "#efefef")).toBeLessThan(4.5);
    expect(ratio("#6d6d6d", "#efefef")).toBeGreaterThan(4.49);
    expect(
      contrastFailure(
        palette({ ...OK, bg: "#efefef", text: "#6d6d6d", primary: "#000000", accent: "#000000" }),
      ),
    ).toMatchObject({
      palette: "customization.colors",
      pair: "text/bg",
      ratio: 4.49,
      required: 4.5,
    });
    // On white: #767676 (4.54) passes, #777777 (4.48) fails.
    expect(contrastFailure(palette({ ...OK, text: "#767676" }))).toBeNull();
    expect(contrastFailure(palette({ ...OK, text: "#777777" }))?.pair).toBe("text/bg");
  });

  it.each(["primary", "accent"])("%s on bg: 3:1 passes just above, fails just below", (key) => {
    expect(ratio("#747474", "#cfcfcf")).toBeGreaterThanOrEqual(3);
    expect(ratio("#747474", "#cfcfcf")).toBeLessThan(3.01);
    expect(ratio("#868686", "#e9e9e9")).toBeLessThan(3);
    expect(ratio("#868686", "#e9e9e9")).toBeGreaterThan(2.99);
    const base = { bg: "#cfcfcf", text: "#000000", primary: "#000000", accent: "#000000" };
    expect(contrastFailure(palette({ ...base, [key]: "#747474" }))).toBeNull();
    const below = { bg: "#e9e9e9", text: "#000000", primary: "#000000", accent: "#000000", [key]: "#868686" };
    expect(contrastFailure(palette(below))).toMatchObject({ pair: `${key}/bg`, ratio: 2.99, required: 3 });
    // On white: #949494 (3.03) passes, #959595 (2.995) fails.
    expect(contrastFailure(palette({ ...OK, [key]: "#949494" }))).toBeNull();
    expect(contrastFailure(palette({ ...OK, [key]: "#959595" }))?.pair).toBe(`${key}/bg`);
  });

  it("the dark palette is held to the same thresholds when present", () => {
    const dark = { bg: "#000000", text: "#ffffff", primary: "#8ab4f8", accent: "#f28b82" };
    expect(contrastFailure(palette({ ...OK, dark }))).toBeNull();
    expect(
      contrastFailure(palette({ ...OK, dark: { ...dark, bg: "#efefef", text: "#6d6d6d" } })),
    ).toMatchObject({
      palette: "customization.colors.dark",
      pair: "text/bg",
    });
    expect(contrastFailure(palette({ ...OK, dark: { ...dark, accent: "#111111" } }))).toMatchObject({
      palette: "customization.colors.dark",
      pair: "accent/bg",
    });
    expect(contrastFailure(palette({ ...OK, dark: { bg: "#000000" } }))).toMatchObject({
      palette: "customization.colors.dark",
      pair: "text",
      ratio: null,
    });
  });

  it("colors with bg, text, primary and accent are required, as opaque hex colors", () => {
    expect(contrastFailure({})).toMatchObject({ pair: "colors" });
    expect(contrastFailure(palette({ text: "#000" }))).toMatchObject({ pair: "bg" });
    expect(contrastFailure(palette({ ...OK, primary: undefined }))).toMatchObject({ pair: "primary" });
    expect(contrastFailure(palette({ ...OK, accent: "#b3261e80" }))).toMatchObject({ pair: "accent" });
  });
});
