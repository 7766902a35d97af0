/**
 * A PNG encoder of our own for tests (no image library in the Workers runtime): the CRC-checked chunks,
 * a header of any size, a real RGB image and one whose pixel data is garbage. No bindings: every project
 * may import it.
 */
import { concatBytes } from "./bytes";

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = (CRC_TABLE[(c ^ b) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  out.set(new TextEncoder().encode(type), 4);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

const PNG_SIGNATURE = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a);

export function pngHeader(width: number, height: number): Uint8Array {
  const ihdr = new Uint8Array(13);
  const view = new DataView(ihdr.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, deflate, no filter, no interlace
  return concatBytes(PNG_SIGNATURE, chunk("IHDR", ihdr));
}

/** A real RGB PNG of this size (a gradient), encoded here: signature, IHDR, one IDAT, IEND. */
export async function pngImage(width: number, height: number): Promise<Uint8Array> {
  const raw = new Uint8Array(height * (1 + 3 * width));
  for (let y = 0; y < height; y++) {
    const row = y * (1 + 3 * width);
    for (let x = 0; x < width; x++) raw.set([x & 0xff, y & 0xff, (x + y) & 0xff], row + 1 + 3 * x);
  }
  const compressed = new Uint8Array(
    await new Response(new Blob([raw]).stream().pipeThrough(new CompressionStream("deflate"))).arrayBuffer(),
  );
  return concatBytes(pngHeader(width, height), chunk("IDAT", compressed), chunk("IEND", new Uint8Array(0)));
}

/** A PNG whose header is sound (the size is readable) but whose pixel data is garbage. */
export function pngWithCorruptPixels(width: number, height: number): Uint8Array {
  const garbage = new Uint8Array(4096).map((_, i) => (i * 7919) & 0xff);
  return concatBytes(pngHeader(width, height), chunk("IDAT", garbage), chunk("IEND", new Uint8Array(0)));
}
