import { describe, expect, it } from "vitest";
import { imageSize, readsSizeOf } from "../../src/content/media/image-size";
import { encodeAs } from "../support/media-helpers";
import { pngHeader, pngImage } from "../support/png";

const ascii = (s: string) => Array.from(s, (ch) => ch.charCodeAt(0));
const svg = (root: string) => new TextEncoder().encode(`${root}<rect width="1" height="1"/></svg>`);

function riff(chunk: string, payload: number[]): Uint8Array {
  return Uint8Array.from([
    ...ascii("RIFF"),
    0,
    0,
    0,
    0,
    ...ascii("WEBP"),
    ...ascii(chunk),
    0,
    0,
    0,
    0,
    ...payload,
  ]);
}

describe("imageSize: the pixel size from the header bytes", () => {
  it("PNG: from IHDR; a missing or misplaced IHDR is unreadable", async () => {
    expect(imageSize("image/png", await pngImage(37, 21))).toEqual({ width: 37, height: 21 });
    expect(imageSize("image/png", pngHeader(13_000, 1))).toEqual({ width: 13_000, height: 1 });
    expect(imageSize("image/png", pngHeader(0, 10))).toBeNull();
    expect(imageSize("image/png", pngHeader(10, 10).subarray(0, 20))).toBeNull();
    const wrongChunk = pngHeader(10, 10);
    wrongChunk.set(ascii("IDAT"), 12);
    expect(imageSize("image/png", wrongChunk)).toBeNull();
  });

  it("JPEG: from the first frame header, past other segments; scan data before it is unreadable", async () => {
    const jpeg = await encodeAs(await pngImage(123, 45), "image/jpeg");
    expect(imageSize("image/jpeg", jpeg)).toEqual({ width: 123, height: 45 });
    const handmade = Uint8Array.from([
      0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x00, 0x00, 0xff, 0xff, 0xc2, 0x00, 0x0b, 0x08, 0x01, 0x2c, 0x02,
      0x58, 0x01, 0x01, 0x11, 0x00,
    ]);
    expect(imageSize("image/jpeg", handmade)).toEqual({ width: 600, height: 300 });
    expect(
      imageSize("image/jpeg", Uint8Array.from([0xff, 0xd8, 0xff, 0xda, 0x00, 0x08, 0, 0, 0, 0])),
    ).toBeNull();
    expect(imageSize("image/jpeg", Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0x00]))).toBeNull();
  });

  it("GIF: from the logical screen descriptor", () => {
    expect(imageSize("image/gif", Uint8Array.from([...ascii("GIF89a"), 0x2c, 0x01, 0x64, 0x00]))).toEqual({
      width: 300,
      height: 100,
    });
    expect(imageSize("image/gif", Uint8Array.from(ascii("GIF89a")))).toBeNull();
  });

  it("WebP: lossy, lossless and extended headers", async () => {
    const lossy = await encodeAs(await pngImage(90, 60), "image/webp");
    expect(imageSize("image/webp", lossy)).toEqual({ width: 90, height: 60 });
    expect(imageSize("image/webp", riff("VP8L", [0x2f, 0x2b, 0xc1, 0x31, 0x00]))).toEqual({
      width: 300,
      height: 200,
    });
    expect(imageSize("image/webp", riff("VP8X", [0, 0, 0, 0, 0x2b, 0x01, 0x00, 0xc7, 0x00, 0x00]))).toEqual({
      width: 300,
      height: 200,
    });
    expect(imageSize("image/webp", riff("VP8L", [0x00, 0x2b, 0xc1, 0x31, 0x00]))).toBeNull();
    expect(imageSize("image/webp", riff("VP8 ", [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]))).toBeNull();
    expect(imageSize("image/webp", riff("ABCD", [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]))).toBeNull();
  });

  it("ICO: the largest directory entry (0 means 256)", () => {
    const entry = (w: number, h: number) => [w, h, 0, 0, 1, 0, 32, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    const ico = Uint8Array.from([0, 0, 1, 0, 2, 0, ...entry(16, 16), ...entry(0, 0)]);
    expect(imageSize("image/x-icon", ico)).toEqual({ width: 256, height: 256 });
    expect(imageSize("image/x-icon", Uint8Array.from([0, 0, 1, 0, 0, 0]))).toBeNull();
  });

  it("SVG: width/height in user units or px, else the viewBox; percentages and nothing at all read as null", () => {
    const ns = 'xmlns="http://www.w3.org/2000/svg"';
    expect(imageSize("image/svg+xml", svg(`<svg ${ns} width="120" height="80.4px">`))).toEqual({
      width: 120,
      height: 80,
    });
    expect(
      imageSize("image/svg+xml", svg(`<svg ${ns} width='100%' height="50%" viewBox="0 0 64 32">`)),
    ).toEqual({
      width: 64,
      height: 32,
    });
    expect(imageSize("image/svg+xml", svg(`<svg ${ns} viewBox="0,0,10.6,5">`))).toEqual({
      width: 11,
      height: 5,
    });
    expect(imageSize("image/svg+xml", svg(`<svg ${ns} width="2em" height="1em">`))).toBeNull();
    expect(imageSize("image/svg+xml", svg(`<svg ${ns}>`))).toBeNull();
    expect(imageSize("image/svg+xml", svg(`<svg ${ns} viewBox="0 0 0 10">`))).toBeNull();
  });

  it("AVIF is left to the decoder", () => {
    expect(readsSizeOf("image/avif")).toBe(false);
    expect(imageSize("image/avif", new Uint8Array(64))).toBeNull();
    expect(readsSizeOf("image/png")).toBe(true);
  });
});
