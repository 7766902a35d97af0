/**
 * One template per message kind and language: from the kind's values it writes the subject, the
 * paragraphs (plain text: the HTML body escapes them, render.ts) and the label of the message's link.
 */
import type { MessagePurpose, TemplateVars } from "../messages";

export interface Composed {
  subject: string;
  /** Plain-text paragraphs; user-chosen values appear in them as they are (the HTML escapes them). */
  paragraphs: string[];
  /** The label of the link's button in the HTML body (the text body shows the address itself). */
  action?: string;
}

export interface TemplateInput<P extends MessagePurpose> {
  vars: TemplateVars[P];
  code: string;
  link: string;
}

export type Templates = { [P in MessagePurpose]: (input: TemplateInput<P>) => Composed };
