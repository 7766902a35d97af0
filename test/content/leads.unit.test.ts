/** The plain rules of forms and leads: fields, spam, form tokens, lead filters, CSV cells and the paged stream. */
import { describe, expect, it } from "vitest";
import { declareFields, type FormField, submittedValues } from "../../src/content/forms/fields";
import { formTokenIssuedAt, issueFormToken } from "../../src/content/forms/form-token";
import { countLinks, SPAM_RULES, spamReasons } from "../../src/content/forms/spam";
import {
  csvCell,
  csvRow,
  leadsExportRequest,
  pagedLines,
  type StreamEnd,
} from "../../src/content/leads/export";
import { dateRange, leadListRequest } from "../../src/content/leads/listing";
import type { LeadRow } from "../../src/content/leads/store";

const code = (c: string) => expect.objectContaining({ code: c });

describe("declared fields and submitted values", () => {
  const fields: FormField[] = declareFields([
    { name: "name", type: "text", required: true, max_length: 5 },
    { name: "tel", type: "tel" },
    { name: "opt", type: "checkbox" },
  ]);

  it("stores defaults: label = name, required false, max_length by type", () => {
    expect(fields[1]).toEqual({
      name: "tel",
      label: "tel",
      type: "tel",
      required: false,
      max_length: 32,
      options: null,
    });
  });

  it("length counts code points, not UTF-16 units", () => {
    expect(submittedValues(fields, { name: "😀😀😀😀😀" })).toEqual({ name: "😀😀😀😀😀" });
    expect(() => submittedValues(fields, { name: "😀😀😀😀😀😀" })).toThrow(code("INVALID_FIELD"));
  });

  it("blank optional values are left out; an unchecked optional checkbox is false", () => {
    expect(submittedValues(fields, { name: "Ana", tel: "  ", opt: "off" })).toEqual({
      name: "Ana",
      opt: false,
    });
  });

  it("a lone surrogate is not text", () => {
    expect(() => submittedValues(fields, { name: "a\ud800" })).toThrow(code("INVALID_FIELD"));
  });

  it("names that are the lead's own columns are refused", () => {
    for (const name of ["id", "created_at", "status", "spam_reasons", "page_url"]) {
      expect(() => declareFields([{ name, type: "text" }])).toThrow(code("INVALID_FORM_FIELDS"));
    }
  });
});

describe("spam rules", () => {
  const now = 1_750_000_000_000;
  const base = { honeypot: null, tokenIssuedMs: now - 10_000, links: 0, burst: false, nowMs: now } as const;

  it("a clean submission trips nothing", () => {
    expect(spamReasons(base)).toEqual([]);
  });

  it("minimum fill time is exclusive of 3 s; a token from the future (beyond a minute of skew) is bad", () => {
    expect(spamReasons({ ...base, tokenIssuedMs: now - SPAM_RULES.minFillMs + 1 })).toEqual(["too_fast"]);
    expect(spamReasons({ ...base, tokenIssuedMs: now - SPAM_RULES.minFillMs })).toEqual([]);
    expect(spamReasons({ ...base, tokenIssuedMs: now + 61_000 })).toEqual(["bad_token"]);
    expect(spamReasons({ ...base, tokenIssuedMs: now - SPAM_RULES.maxTokenAgeMs - 1 })).toEqual([
      "stale_token",
    ]);
  });

  it("a whitespace honeypot is not filled in", () => {
    expect(spamReasons({ ...base, honeypot: "  " })).toEqual([]);
  });

  it("counts links outside url fields", () => {
    const f = declareFields([
      { name: "site", type: "url" },
      { name: "msg", type: "textarea" },
    ]);
    expect(countLinks(f, { site: "https://a.example", msg: "HTTPS://b http://c www.d [url=e]" })).toBe(4);
  });
});

describe("form tokens", () => {
  it("verify for their site and form only, and carry the issue time", async () => {
    const token = await issueFormToken("secret", "S", "F", 1_750_000_000_123);
    expect(await formTokenIssuedAt("secret", "S", "F", token)).toBe(1_750_000_000_123);
    expect(await formTokenIssuedAt("secret", "S", "G", token)).toBeNull();
    expect(await formTokenIssuedAt("other", "S", "F", token)).toBeNull();
    const [time, id, mac] = token.split(".");
    const later = (Number.parseInt(time!, 36) + 60_000).toString(36);
    expect(await formTokenIssuedAt("secret", "S", "F", `${later}.${id}.${mac}`)).toBeNull();
    // The random id is signed too: another id under the same MAC does not verify.
    const otherId = (await issueFormToken("secret", "S", "F", 1_750_000_000_123)).split(".")[1];
    expect(otherId).not.toBe(id);
    expect(await formTokenIssuedAt("secret", "S", "F", `${time}.${otherId}.${mac}`)).toBeNull();
    // The id-less v1 form of earlier deployments no longer verifies (flagged bad_token, still kept).
    expect(await formTokenIssuedAt("secret", "S", "F", `${time}.${mac}`)).toBeNull();
    expect(await formTokenIssuedAt("secret", "S", "F", "junk")).toBeNull();
  });
});

describe("lead filters", () => {
  it("dates are UTC days, ate inclusive; instants are exact, ate inclusive to the millisecond", () => {
    expect(dateRange("2025-03-01", "2025-03-01")).toEqual({
      from: "2025-03-01T00:00:00.000Z",
      toExclusive: "2025-03-02T00:00:00.000Z",
    });
    expect(dateRange(undefined, "2024-12-31")).toEqual({
      from: null,
      toExclusive: "2025-01-01T00:00:00.000Z",
    });
    expect(dateRange("2025-03-01T10:00:00+02:00", "2025-03-01T10:00:00.5Z")).toEqual({
      from: "2025-03-01T08:00:00.000Z",
      toExclusive: "2025-03-01T10:00:00.501Z",
    });
    expect(dateRange("2024-02-29", undefined).from).toBe("2024-02-29T00:00:00.000Z");
    expect(dateRange("2025-01-01", "9999-12-31")).toEqual({
      from: "2025-01-01T00:00:00.000Z",
      toExclusive: null,
    });
    expect(() => dateRange("0050-01-01", undefined)).toThrow(code("INVALID_DATE"));
    expect(() => dateRange("2025-02-29", undefined)).toThrow(code("INVALID_DATE"));
    expect(() => dateRange("2025-03-01T10:00:00Z", "2025-03-01T09:00:00Z")).toThrow(
      code("INVALID_DATE_RANGE"),
    );
  });

  it("defaults: status clean, limit 50, ordem desc", () => {
    expect(leadListRequest({})).toEqual({
      filters: { formId: null, status: "clean", from: null, toExclusive: null },
      order: "desc",
      limit: 50,
      cursor: null,
    });
    expect(leadListRequest({ status: "all" }).filters.status).toBeNull();
  });

  it("the export takes the list's filters; format ndjson by default", () => {
    expect(leadsExportRequest({}).format).toBe("ndjson");
    expect(() => leadsExportRequest({ format: "csv" })).toThrow(code("FORM_ID_REQUIRED"));
    expect(() => leadsExportRequest({ status: "bogus" })).toThrow(code("INVALID_STATUS"));
  });
});

describe("CSV cells", () => {
  it("quotes what needs quoting and neutralizes formulas, but leaves plain numbers", () => {
    expect(csvCell("plain")).toBe("plain");
    expect(csvCell('a "b", c')).toBe('"a ""b"", c"');
    expect(csvCell("two\nlines")).toBe('"two\nlines"');
    expect(csvCell("=1+1")).toBe("'=1+1");
    expect(csvCell("+1")).toBe("'+1");
    expect(csvCell("@x")).toBe("'@x");
    expect(csvCell("\tx")).toBe("'\tx");
    expect(csvCell("\rx")).toBe(`"'\rx"`);
    expect(csvCell("-1.5")).toBe("-1.5");
    expect(csvCell(-2)).toBe("-2");
    expect(csvCell("-1-1")).toBe("'-1-1");
    expect(csvCell('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvCell(null)).toBe("");
    expect(csvCell(true)).toBe("true");
    expect(csvRow(["a", null, 3])).toBe("a,,3\r\n");
  });
});

describe("the paged export stream", () => {
  function source(total: number, pageSize: number) {
    const stats = { pagesRead: 0, rowsRead: 0 };
    const readPage = async (after: LeadRow | null) => {
      stats.pagesRead++;
      const start = after ? Number(after.id) : 0;
      const rows: LeadRow[] = [];
      for (let i = start + 1; i <= Math.min(total, start + pageSize); i++) {
        rows.push({
          id: String(i),
          form_id: "F",
          status: "clean",
          spam_reasons_json: "[]",
          fields_json: "{}",
          page_url: null,
          created_at: "t",
        });
      }
      stats.rowsRead += rows.length;
      return rows;
    };
    return { stats, readPage };
  }

  it("hands out the first page of 10,000 rows after reading one page, and reads the next only when asked", async () => {
    const { stats, readPage } = source(10_000, 250);
    const ends: [StreamEnd, number][] = [];
    const stream = pagedLines({
      readPage,
      pageSize: 250,
      header: "h\n",
      line: (r) => `${r.id}\n`,
      end: async (outcome, count) => {
        ends.push([outcome, count]);
      },
    });
    const reader = stream.getReader();
    const first = await reader.read();
    const text = new TextDecoder().decode(first.value);
    expect(text.startsWith("h\n1\n2\n")).toBe(true);
    expect(text.split("\n").filter((l) => l !== "")).toHaveLength(251);
    // One page read for the first chunk, at most one more buffered ahead: never the whole table.
    expect(stats.pagesRead).toBeLessThanOrEqual(2);
    expect(stats.rowsRead).toBeLessThanOrEqual(500);
    expect(ends).toEqual([]);
    let lines = 250;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      lines += new TextDecoder()
        .decode(value)
        .split("\n")
        .filter((l) => l !== "").length;
      // Flat memory: what was read is never more than a page ahead of what was handed out.
      expect(stats.rowsRead - lines).toBeLessThanOrEqual(250);
    }
    expect(lines).toBe(10_000);
    expect(stats.pagesRead).toBe(41);
    expect(ends).toEqual([["completed", 10_000]]);
  });

  it("a failed page read errors the stream and closes the audit as failed", async () => {
    let calls = 0;
    const ends: [StreamEnd, number][] = [];
    const stream = pagedLines({
      readPage: async () => {
        calls++;
        if (calls === 2) throw new Error("D1 down");
        return Array.from({ length: 2 }, (_, i) => ({ id: String(i) }) as LeadRow);
      },
      pageSize: 2,
      header: "",
      line: (r) => `${r.id}\n`,
      end: async (outcome, count) => {
        ends.push([outcome, count]);
      },
    });
    const reader = stream.getReader();
    await reader.read();
    await expect(reader.read()).rejects.toThrow("D1 down");
    expect(ends).toEqual([["failed", 2]]);
  });

  it("a failed audit close errors the stream instead of ending it cleanly", async () => {
    const stream = pagedLines({
      readPage: async () => [],
      pageSize: 2,
      header: "h\n",
      line: () => "",
      end: async (outcome) => {
        if (outcome === "completed") throw new Error("audit down");
      },
    });
    const reader = stream.getReader();
    await expect(
      (async () => {
        for (;;) if ((await reader.read()).done) return;
      })(),
    ).rejects.toThrow("audit down");
  });
});
