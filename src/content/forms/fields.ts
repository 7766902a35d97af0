/**
 * A form's declared fields (the definition site staff write, also the CSV columns of the leads export)
 * and the validation of a submission against them. Plain functions: no I/O.
 */
import { fail } from "../errors";

export const FIELD_TYPES = [
  "text",
  "email",
  "tel",
  "url",
  "textarea",
  "number",
  "checkbox",
  "select",
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export const MAX_FIELDS = 30;
export const FIELD_NAME = /^[a-z][a-z0-9_]{0,39}$/;
/**
 * The lead's own columns, first in every CSV export (and keys of every lead): no field may take one of
 * these names, so a CSV never has two columns of one name.
 */
export const LEAD_COLUMNS = ["id", "created_at", "status", "spam_reasons", "page_url"] as const;

/** Longest value per text type: the default when `max_length` is not declared, and its ceiling. */
const TEXT_LIMITS: Partial<Record<FieldType, { default: number; max: number }>> = {
  text: { default: 200, max: 1000 },
  email: { default: 254, max: 254 },
  tel: { default: 32, max: 32 },
  url: { default: 2048, max: 2048 },
  textarea: { default: 5000, max: 10000 },
};

export interface FormField {
  name: string;
  label: string;
  type: FieldType;
  required: boolean;
  /** Text types only (code points). */
  max_length: number | null;
  /** `select` only: the allowed values. */
  options: string[] | null;
}

/** A field as staff send it (the route's schema has checked types and bounds). */
export interface FormFieldInput {
  name: string;
  label?: string;
  type: FieldType;
  required?: boolean;
  max_length?: number;
  options?: string[];
}

function invalidDefinition(detail: string, field: string): never {
  fail("INVALID_FORM_FIELDS", { detail, details: { field } });
}

/** The stored definition of `inputs`: unique names, options only (and always) on selects, bounded lengths. */
export function declareFields(inputs: FormFieldInput[]): FormField[] {
  const seen = new Set<string>();
  return inputs.map((input) => {
    if (seen.has(input.name)) invalidDefinition(`Field name ${input.name} is declared twice.`, input.name);
    if ((LEAD_COLUMNS as readonly string[]).includes(input.name)) {
      invalidDefinition(`${input.name} is a column of every lead; name the field otherwise.`, input.name);
    }
    seen.add(input.name);
    const limits = TEXT_LIMITS[input.type];
    if (input.max_length !== undefined && (!limits || input.max_length > limits.max)) {
      invalidDefinition(
        limits
          ? `max_length of a ${input.type} field is at most ${limits.max}.`
          : `max_length applies to text fields only.`,
        input.name,
      );
    }
    const isSelect = input.type === "select";
    if (isSelect !== (input.options !== undefined)) {
      invalidDefinition("options are required on select fields and allowed on no other.", input.name);
    }
    if (input.options && new Set(input.options).size !== input.options.length) {
      invalidDefinition("options must be distinct.", input.name);
    }
    return {
      name: input.name,
      label: input.label ?? input.name,
      type: input.type,
      required: input.required ?? false,
      max_length: limits ? (input.max_length ?? limits.default) : null,
      options: input.options ?? null,
    };
  });
}

export type FieldValue = string | number | boolean;

function invalidField(field: string, reason: string): never {
  fail("INVALID_FIELD", { detail: `${field}: ${reason}`, details: { field, reason } });
}

const EMAIL = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:"]+$/;
const TEL = /^\+?[0-9 ()./-]{3,32}$/;
const NUMBER_TEXT = /^-?\d{1,15}(?:\.\d{1,15})?$/;
const TRUE_WORDS = new Set(["true", "on", "yes", "1"]);
const FALSE_WORDS = new Set(["false", "off", "no", "0", ""]);
/** Control characters (tab and line feed are allowed where lines are) and lone surrogates. */
const CONTROL = /[^\P{Cc}\t\n]/u;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function textValue(field: FormField, raw: string): string {
  const value = raw.replace(/\r\n?/g, "\n").trim();
  if (LONE_SURROGATE.test(value)) invalidField(field.name, "is not valid text");
  if (CONTROL.test(value) || (field.type !== "textarea" && /[\t\n]/.test(value))) {
    invalidField(field.name, "contains control characters");
  }
  if (field.max_length !== null && [...value].length > field.max_length) {
    invalidField(field.name, `is longer than ${field.max_length} characters`);
  }
  if (field.type === "email" && value !== "" && !EMAIL.test(value)) {
    invalidField(field.name, "must be an e-mail address");
  }
  if (field.type === "tel" && value !== "" && !TEL.test(value))
    invalidField(field.name, "must be a phone number");
  if (field.type === "url" && value !== "") {
    let url: URL | null = null;
    try {
      url = new URL(value);
    } catch {
      url = null;
    }
    if (!url || (url.protocol !== "https:" && url.protocol !== "http:")) {
      invalidField(field.name, "must be an http(s) URL");
    }
  }
  return value;
}

/** One declared field's value, or undefined when it was not filled in. */
function fieldValue(field: FormField, raw: unknown): FieldValue | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw === "object") invalidField(field.name, "must be a single value");
  if (field.type === "checkbox") {
    if (typeof raw === "boolean") return raw;
    const word = String(raw).trim().toLowerCase();
    if (TRUE_WORDS.has(word)) return true;
    if (FALSE_WORDS.has(word)) return false;
    invalidField(field.name, "must be true or false");
  }
  if (field.type === "number") {
    if (typeof raw === "number" && Number.isFinite(raw)) return raw;
    const text = String(raw).trim();
    if (text === "") return undefined;
    if (!NUMBER_TEXT.test(text)) invalidField(field.name, "must be a number");
    return Number(text);
  }
  const text = textValue(field, String(raw));
  if (text === "") return undefined;
  if (field.type === "select" && !field.options?.includes(text)) {
    invalidField(field.name, "is not one of the options");
  }
  return text;
}

/**
 * The declared fields' values of a submission, in declaration order; undeclared keys are ignored (a
 * submit button's name, tracking parameters). A required field must be filled in (a required checkbox
 * checked: consent boxes). Every failure is a 400 naming the field.
 */
export function submittedValues(
  fields: FormField[],
  body: Record<string, unknown>,
): Record<string, FieldValue> {
  const values: Record<string, FieldValue> = {};
  for (const field of fields) {
    const value = fieldValue(field, Object.hasOwn(body, field.name) ? body[field.name] : undefined);
    const missing = value === undefined || (field.type === "checkbox" && value === false);
    if (field.required && missing) invalidField(field.name, "is required");
    if (value !== undefined) values[field.name] = value;
  }
  return values;
}
