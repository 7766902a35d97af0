/**
 * The `conversion` note of an HTML or Markdown body: what the converter could not keep as blocks, one
 * entry per kind of loss with how often it happened and the first example, so a client (an autoposter,
 * an agent) sees at once what its body lost instead of finding out on the page.
 */
import type { EditorBlock } from "../render/render-blocks";

export interface ConversionLoss {
  /** What was not kept, and what became of it: `"<script> (removed with its content)"`. */
  what: string;
  count: number;
  /** The first occurrence, shortened. */
  example?: string;
}

export interface Conversion {
  /** Empty when everything was kept. */
  lost: ConversionLoss[];
}

export interface Converted {
  blocks: EditorBlock[];
  conversion: Conversion;
}

const MAX_EXAMPLE = 80;

/** Collects losses by kind, in the order they were first met. */
export class LossLog {
  private readonly entries = new Map<string, ConversionLoss>();

  add(what: string, example?: string): void {
    const entry = this.entries.get(what);
    if (entry) {
      entry.count++;
      return;
    }
    const shown = example?.replace(/\s+/g, " ").trim();
    this.entries.set(
      what,
      shown
        ? {
            what,
            count: 1,
            example: shown.length > MAX_EXAMPLE ? `${shown.slice(0, MAX_EXAMPLE - 1)}…` : shown,
          }
        : { what, count: 1 },
    );
  }

  get lost(): ConversionLoss[] {
    return [...this.entries.values()];
  }
}
