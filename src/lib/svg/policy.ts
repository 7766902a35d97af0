/**
 * The allowlist: which SVG elements and attributes a logo, favicon or article image may keep, and the
 * value checks for URLs. Everything not listed is removed (an element together with its content).
 */

export const SVG_NS = "http://www.w3.org/2000/svg";
export const XLINK_NS = "http://www.w3.org/1999/xlink";

/**
 * Element names are matched case-sensitively: `<ScRiPt>` is not `script` for XML, but an HTML parser
 * lowercases it, so anything not spelled exactly like an allowed SVG element goes.
 * Deliberately absent: script, foreignObject, iframe, all animation elements (animate, set,
 * animateMotion, animateTransform, animateColor, mpath, discard), handler, listener, feImage
 * (loads URLs), cursor, font/font-face*, switch, view, and every HTML or prefixed (foreign) element.
 */
export const ALLOWED_ELEMENTS: ReadonlySet<string> = new Set([
  "svg",
  "g",
  "defs",
  "symbol",
  "use",
  "title",
  "desc",
  "metadata",
  "style",
  "path",
  "rect",
  "circle",
  "ellipse",
  "line",
  "polyline",
  "polygon",
  "text",
  "tspan",
  "textPath",
  "a",
  "image",
  "linearGradient",
  "radialGradient",
  "stop",
  "clipPath",
  "mask",
  "pattern",
  "marker",
  "filter",
  "feBlend",
  "feColorMatrix",
  "feComponentTransfer",
  "feComposite",
  "feConvolveMatrix",
  "feDiffuseLighting",
  "feDisplacementMap",
  "feDistantLight",
  "feDropShadow",
  "feFlood",
  "feFuncA",
  "feFuncB",
  "feFuncG",
  "feFuncR",
  "feGaussianBlur",
  "feMerge",
  "feMergeNode",
  "feMorphology",
  "feOffset",
  "fePointLight",
  "feSpecularLighting",
  "feSpotLight",
  "feTile",
  "feTurbulence",
]);

/** Elements whose content is text only: HTML treats title and desc as HTML integration points. */
export const TEXT_ONLY_ELEMENTS: ReadonlySet<string> = new Set(["title", "desc", "style"]);

/**
 * Unprefixed attribute names, lowercased (an HTML parser lowercases attribute names, so `HrEf` must be
 * judged as `href`; `viewBox` written as `viewbox` stays). No `on*`, no `name` (DOM clobbering), no
 * `xml:base`, no animation timing (`begin`, `to`, `from`, `attributeName`), no `target`.
 */
export const ALLOWED_ATTRIBUTES: ReadonlySet<string> = new Set([
  // core and accessibility
  "id",
  "class",
  "style",
  "lang",
  "role",
  "focusable",
  "tabindex",
  "version",
  "baseprofile",
  "xmlns",
  "href",
  "type",
  "media",
  "systemlanguage",
  "data-name",
  // geometry and viewport
  "x",
  "y",
  "x1",
  "y1",
  "x2",
  "y2",
  "cx",
  "cy",
  "r",
  "rx",
  "ry",
  "fx",
  "fy",
  "fr",
  "width",
  "height",
  "d",
  "points",
  "pathlength",
  "transform",
  "transform-origin",
  "viewbox",
  "preserveaspectratio",
  "overflow",
  "enable-background",
  // paint and presentation
  "fill",
  "fill-opacity",
  "fill-rule",
  "stroke",
  "stroke-width",
  "stroke-linecap",
  "stroke-linejoin",
  "stroke-miterlimit",
  "stroke-dasharray",
  "stroke-dashoffset",
  "stroke-opacity",
  "opacity",
  "color",
  "display",
  "visibility",
  "clip",
  "clip-path",
  "clip-rule",
  "mask",
  "mask-type",
  "filter",
  "marker-start",
  "marker-mid",
  "marker-end",
  "shape-rendering",
  "image-rendering",
  "color-interpolation",
  "color-interpolation-filters",
  "color-rendering",
  "paint-order",
  "vector-effect",
  "pointer-events",
  "isolation",
  "mix-blend-mode",
  "solid-color",
  "solid-opacity",
  // gradients, patterns, clipping, masking, markers
  "gradientunits",
  "gradienttransform",
  "spreadmethod",
  "offset",
  "stop-color",
  "stop-opacity",
  "patternunits",
  "patterncontentunits",
  "patterntransform",
  "clippathunits",
  "maskunits",
  "maskcontentunits",
  "markerwidth",
  "markerheight",
  "markerunits",
  "refx",
  "refy",
  "orient",
  // filters
  "filterunits",
  "primitiveunits",
  "in",
  "in2",
  "result",
  "stddeviation",
  "dx",
  "dy",
  "mode",
  "values",
  "operator",
  "k1",
  "k2",
  "k3",
  "k4",
  "radius",
  "scale",
  "xchannelselector",
  "ychannelselector",
  "basefrequency",
  "numoctaves",
  "seed",
  "stitchtiles",
  "tablevalues",
  "slope",
  "intercept",
  "amplitude",
  "exponent",
  "order",
  "kernelmatrix",
  "divisor",
  "bias",
  "targetx",
  "targety",
  "edgemode",
  "kernelunitlength",
  "preservealpha",
  "surfacescale",
  "diffuseconstant",
  "specularconstant",
  "specularexponent",
  "lighting-color",
  "flood-color",
  "flood-opacity",
  "azimuth",
  "elevation",
  "z",
  "pointsatx",
  "pointsaty",
  "pointsatz",
  "limitingconeangle",
  // text
  "rotate",
  "textlength",
  "lengthadjust",
  "text-anchor",
  "text-decoration",
  "text-rendering",
  "text-orientation",
  "font",
  "font-family",
  "font-size",
  "font-size-adjust",
  "font-stretch",
  "font-style",
  "font-variant",
  "font-weight",
  "letter-spacing",
  "word-spacing",
  "dominant-baseline",
  "alignment-baseline",
  "baseline-shift",
  "writing-mode",
  "direction",
  "unicode-bidi",
  "startoffset",
  "method",
  "spacing",
  "side",
  "kerning",
]);

/** Prefixed attributes are kept only with their canonical spelling (an undeclared prefix is junk). */
export const ALLOWED_PREFIXED_ATTRIBUTES: ReadonlySet<string> = new Set([
  "xlink:href",
  "xml:space",
  "xml:lang",
  "xmlns:xlink",
]);

/** `aria-*` attributes: accessibility names and relations for logos. */
export const ARIA_ATTRIBUTE = /^aria-[a-z]+$/;

// biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point
const IGNORABLE = /[\u0000-\u0020\u007f-\u00a0\u1680\u180e\u2000-\u200f\u2028-\u202f\u205f\u3000\ufeff]/g;

/** Removes what URL parsers ignore or treat as separators, so `java&#9;script:` is seen as `javascript:`. */
export function squash(value: string): string {
  return value.replace(IGNORABLE, "").toLowerCase();
}

/** Schemes and URL kinds that can run script or render active content. */
export const DANGEROUS_URL = /(?:java|vb|live|moz-?)script:|mocha:|data:|-moz-binding|expression\(/;

/** A same-document reference `#id`: the only form `use`, gradients, patterns and filters may point at. */
export function isLocalRef(value: string): boolean {
  return /^#[^\s"'()<>\\#]+$/.test(value.trim());
}

/** Link target of `<a>`: same-document, relative, http(s) or mailto; never script or data. */
export function isSafeLinkUrl(value: string): boolean {
  const v = squash(value);
  if (v.startsWith("#")) return true;
  const scheme = /^([a-z][a-z0-9+.-]*):/.exec(v);
  if (scheme) return scheme[1] === "http" || scheme[1] === "https" || scheme[1] === "mailto";
  return !DANGEROUS_URL.test(v);
}

/** `<image>` may only show an embedded raster image (no network, no nested SVG document). */
export function isSafeImageHref(value: string): boolean {
  return isLocalRef(value) || /^data:image\/(?:png|jpeg|jpg|gif|webp|avif)[;,]/.test(squash(value));
}
