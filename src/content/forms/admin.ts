/**
 * Form administration by site staff through the edge (`/api/v1/sites/{site_id}/forms`): the same people
 * who administer the site's API keys (a form's fields decide which personal data the site collects, as
 * `leads:read` decides who reads it). With the forms app off the area is gone: 404, nothing deleted.
 */
import { newId, parseId } from "../../lib/ids";
import type { SiteProjection } from "../../lib/rpc";
import { fail } from "../errors";
import { declareFields, type FormField, type FormFieldInput } from "./fields";
import { type FormRecord, formsAreaOpen, insertForm, listSiteForms, softDeleteForm } from "./store";

export interface NewForm {
  name: string;
  fields: FormFieldInput[];
}

export interface FormView {
  id: string;
  name: string;
  fields: FormField[];
  created_by: string;
  created_at: string;
}

function view(form: FormRecord): FormView {
  return {
    id: form.id,
    name: form.name,
    fields: form.fields,
    created_by: form.created_by,
    created_at: form.created_at,
  };
}

/**
 * The staff caller of the site (authorized by `authorizeSiteAdmin` of keys/middleware.ts, which routed the
 * request to the site's group), whose forms app must be on (else 404: the area does not exist).
 */
export async function requireFormsArea<C extends { site: SiteProjection }>(
  db: D1Database,
  caller: C,
): Promise<C> {
  if (!(await formsAreaOpen(db, caller.site.id)))
    fail("NOT_FOUND", "The forms app is not enabled on this site.");
  return caller;
}

export async function createForm(db: D1Database, siteId: string, userId: string, input: NewForm) {
  const form: FormRecord = {
    id: newId(),
    site_id: siteId,
    name: input.name,
    fields: declareFields(input.fields),
    created_by: userId,
    created_at: new Date().toISOString(),
    deleted_at: null,
  };
  await insertForm(db, form);
  return view(form);
}

export async function listForms(db: D1Database, siteId: string): Promise<FormView[]> {
  return (await listSiteForms(db, siteId)).map(view);
}

/** Soft delete: submissions stop (404), the form's leads stay readable and exportable. */
export async function deleteForm(db: D1Database, siteId: string, rawFormId: string): Promise<void> {
  const formId = parseId(rawFormId);
  const deleted = formId !== null && (await softDeleteForm(db, siteId, formId, new Date().toISOString()));
  if (!deleted) fail("NOT_FOUND", "No such form.");
}
