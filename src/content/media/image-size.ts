/**
 * Pixel size of an image from its header bytes, without decoding it: PNG (IHDR), GIF (logical screen),
 * WebP (VP8, VP8L, VP8X), JPEG (the first SOFn frame header), ICO (the largest directory entry) and SVG
 * (root `width`/`height`, else `viewBox`). Null when the header is missing or malformed (the file cannot
 * be decoded) or, for SVG, when the document names no size. AVIF is not read here (the Images binding's
 * `info()` reads it). No I/O: plain functions over bytes.
 */

export interface ImageSize {
  width: number;
  height: number;
}

function u16le(b: Uint8Array, at: number): number {
  return (b[at] as number) | ((b[at + 1] as number) << 8);
}

function u16be(b: Uint8Array, at: number): number {
  return ((b[at] as number) << 8) | (b[at + 1] as number);
}

function u24le(b: Uint8Array, at: number): number {
  return u16le(b, at) | ((b[at + 2] as number) << 16);
}

function u32be(b: Uint8Array, at: number): number {
  return (u16be(b, at) * 65536 + u16be(b, at + 2)) >>> 0;
}

function ascii(b: Uint8Array, at: number, len: number): string {
  if (b.length < at + len) return "";
  return String.fromCharCode(...b.subarray(at, at + len));
}

function size(width: number, height: number): ImageSize | null {
  return width > 0 && height > 0 ? { width, height } : null;
}

/** PNG: the IHDR chunk must come first (length 13), width and height big-endian. */
function pngSize(b: Uint8Array): ImageSize | null {
  if (b.length < 24 || u32be(b, 8) !== 13 || ascii(b, 12, 4) !== "IHDR") return null;
  return size(u32be(b, 16), u32be(b, 20));
}

function gifSize(b: Uint8Array): ImageSize | null {
  if (b.length < 10) return null;
  return size(u16le(b, 6), u16le(b, 8));
}

/** WebP: lossy (`VP8 ` key frame), lossless (`VP8L`, 14-bit sizes) or extended (`VP8X` canvas). */
function webpSize(b: Uint8Array): ImageSize | null {
  const chunk = ascii(b, 12, 4);
  if (chunk === "VP8 ") {
    if (b.length < 30 || b[23] !== 0x9d || b[24] !== 0x01 || b[25] !== 0x2a) return null;
    return size(u16le(b, 26) & 0x3fff, u16le(b, 28) & 0x3fff);
  }
  if (chunk === "VP8L") {
    if (b.length < 25 || b[20] !== 0x2f) return null;
    const b1 = b[22] as number;
    const b2 = b[23] as number;
    const b3 = b[24] as number;
    return size(
      1 + ((b[21] as number) | ((b1 & 0x3f) << 8)),
      1 + ((b1 >> 6) | (b2 << 2) | ((b3 & 0x0f) << 10)),
    );
  }
  if (chunk === "VP8X") {
    if (b.length < 30) return null;
    return size(1 + u24le(b, 24), 1 + u24le(b, 27));
  }
  return null;
}

/** Start-of-frame markers (baseline, progressive, lossless, arithmetic); not DHT (C4), JPG (C8), DAC (CC). */
const JPEG_SOF = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);

/** JPEG: walks the marker segments up to the first frame header; scan data before it is malformed. */
function jpegSize(b: Uint8Array): ImageSize | null {
  let at = 2;
  while (at + 4 <= b.length) {
    if (b[at] !== 0xff) return null;
    const marker = b[at + 1] as number;
    if (marker === 0xff) {
      at++;
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2;
      continue;
    }
    if (marker === 0xda || marker === 0xd9) return null;
    const length = u16be(b, at + 2);
    if (length < 2) return null;
    if (JPEG_SOF.has(marker)) {
      if (length < 7 || at + 9 > b.length) return null;
      return size(u16be(b, at + 7), u16be(b, at + 5));
    }
    at += 2 + length;
  }
  return null;
}

/** ICO: the largest entry of the directory (a size byte of 0 means 256). */
function icoSize(b: Uint8Array): ImageSize | null {
  const count = b.length >= 6 ? u16le(b, 4) : 0;
  let best: ImageSize | null = null;
  for (let i = 0; i < count && 6 + 16 * (i + 1) <= b.length; i++) {
    const width = b[6 + 16 * i] || 256;
    const height = b[7 + 16 * i] || 256;
    if (!best || width * height > best.width * best.height) best = { width, height };
  }
  return best;
}

function svgLength(value: string | undefined): number | null {
  const match = value?.trim().match(/^(\d+(?:\.\d+)?)(px)?$/);
  return match ? Math.round(Number(match[1])) : null;
}

/** SVG: the root's `width`/`height` in user units or px; otherwise the `viewBox` size. */
function svgSize(b: Uint8Array): ImageSize | null {
  const text = new TextDecoder().decode(b.subarray(0, 64 * 1024));
  const root = text.match(/<svg\b[^>]*>/i)?.[0];
  if (!root) return null;
  const attrs = new Map<string, string>();
  for (const m of root.matchAll(/([\w:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) {
    attrs.set((m[1] as string).toLowerCase(), m[2] ?? m[3] ?? "");
  }
  const width = svgLength(attrs.get("width"));
  const height = svgLength(attrs.get("height"));
  if (width && height) return size(width, height);
  const box = attrs
    .get("viewbox")
    ?.trim()
    .split(/[\s,]+/)
    .map(Number);
  if (box?.length !== 4 || box.some((n) => !Number.isFinite(n))) return null;
  return size(Math.round(box[2] as number), Math.round(box[3] as number));
}

const READERS: Record<string, (b: Uint8Array) => ImageSize | null> = {
  "image/png": pngSize,
  "image/gif": gifSize,
  "image/webp": webpSize,
  "image/jpeg": jpegSize,
  "image/x-icon": icoSize,
  "image/svg+xml": svgSize,
};

/** Whether `imageSize` reads this type (AVIF is left to the decoder). */
export function readsSizeOf(contentType: string): boolean {
  return contentType in READERS;
}

/** The pixel size of `bytes` of type `contentType`, or null (malformed header, or a type not read here). */
export function imageSize(contentType: string, bytes: Uint8Array): ImageSize | null {
  const read = READERS[contentType];
  return read ? read(bytes) : null;
}
