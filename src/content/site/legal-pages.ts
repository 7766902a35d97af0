/**
 * Legal pages (RPC `upsertLegalPage`, `legalPages`, for sites' legal page generator): each legal document
 * of a site is a page (post type `page`) whose `fields` place it under /legal/. A write is one D1 batch
 * (an insert, or the revision-guarded update of `editPost` with its outbox effects).
 *
 * Generator-written and untouched: the generator stores in `fields.gerador_hash` the hash of the title
 * and body it wrote; a draft whose current title and body still hash to it is the generator's and is
 * rewritten (`atualizada`); any other draft (hand-written, or edited since) and an archived page are kept
 * (`existente_preservada`), published and scheduled pages too (`existente_publicada`): for those only
 * `secao`, `documento_legal` and `ordem` are set (which moves a public page to /legal/, with the purge of
 * its old URL and a `post.updated` event).
 */
import { newId } from "../../lib/ids";
import { errorFields, type Logger } from "../../lib/log";
import { ApiError } from "../../lib/problem";
import type { LegalPage, LegalPageOutcome, LegalPageResult, LegalPageWrite } from "../../lib/rpc";
import { batch } from "../../lib/sql";
import { contextPersona } from "../authors/personas";
import type { Env, Services, WorkerEnv } from "../core/bindings";
import { postPath, postUrl } from "../core/effects/outbound";
import { deliverEffects, type PostEffect } from "../core/effects/pending";
import { effectAfterUpdateStatement } from "../core/effects/store";
import { siteEnv } from "../core/groups";
import { contentServices } from "../core/services";
import { sha256Base64url } from "../keys/key-hash";
import { blocksText } from "../posts/input";
import { type ActorStamp, creationStamp } from "../posts/roles";
import { editEffects, editPost } from "../posts/service";
import { isValidSlug } from "../posts/slug";
import {
  effectiveStatus,
  insertPostStatement,
  type PostRow,
  postsBySlug,
  publicTypeSlugs,
} from "../posts/store";
import { legalPageOf, legalPagesOf } from "./legal-pages-store";
import { getPostType, getSite, INACTIVE_SITE_STATUSES } from "./store";

/** Who writes a legal page: the staff person generating it through sites (no name is read for it). */
function generator(userId: string): ActorStamp {
  return { kind: "person", id: userId, name: null };
}

const TITLE_MAX = 300;
const DOCUMENT_RE = /^[a-z0-9][a-z0-9-]{0,63}$/;

type Refusal = Extract<LegalPageResult, { ok: false }>;

function refused(code: string, detail: string): Refusal {
  return { ok: false, code, detail };
}

/** The hash of a body as the generator wrote it: a page whose title and body still hash to it is untouched. */
export function generatorHash(title: string, blocksJson: string | null): Promise<string> {
  return sha256Base64url(`${title}\n${blocksJson ?? ""}`);
}

function parseFields(stored: string | null): Record<string, unknown> {
  if (!stored) return {};
  try {
    const parsed: unknown = JSON.parse(stored);
    return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

function checkInput(input: LegalPageWrite): Refusal | null {
  if (!isValidSlug(input.slug)) return refused("INVALID_SLUG", "slug is not a valid post slug.");
  const title = input.title.trim();
  if (title === "" || title.length > TITLE_MAX) return refused("BAD_REQUEST", "title: 1 to 300 characters.");
  const { fields } = input;
  if (fields?.secao !== "legal" || !DOCUMENT_RE.test(fields.documento_legal ?? "")) {
    return refused("BAD_REQUEST", "fields: secao must be legal, documento_legal a slug.");
  }
  if (!Number.isInteger(fields.ordem) || fields.ordem < 0) {
    return refused("BAD_REQUEST", "fields.ordem must be a non-negative integer.");
  }
  return null;
}

/** What generation does to the document's existing page, read as it is now. */
function nextOf(
  existing: PostRow,
  body: { title: string; blocks_json: string; hash: string },
  fields: LegalPageWrite["fields"],
  untouched: boolean,
): { resultado: LegalPageOutcome; next: PostRow } {
  const placed = { ...parseFields(existing.fields), ...fields };
  if (existing.status === "published" || existing.status === "scheduled") {
    return { resultado: "existente_publicada", next: { ...existing, fields: JSON.stringify(placed) } };
  }
  if (existing.status === "draft" && untouched) {
    const next = {
      ...existing,
      title: body.title,
      blocks_json: body.blocks_json,
      fields: JSON.stringify({ ...placed, gerador_hash: body.hash }),
    };
    return { resultado: "atualizada", next };
  }
  return { resultado: "existente_preservada", next: { ...existing, fields: JSON.stringify(placed) } };
}

async function isUntouched(row: PostRow): Promise<boolean> {
  const stored = parseFields(row.fields).gerador_hash;
  return typeof stored === "string" && stored === (await generatorHash(row.title, row.blocks_json));
}

function samePage(a: PostRow, b: PostRow): boolean {
  return a.title === b.title && a.blocks_json === b.blocks_json && a.fields === b.fields;
}

function legalPage(
  row: PostRow,
  site: Parameters<typeof postUrl>[0],
  platformDomain: string,
  now: string,
): LegalPage {
  const fields = parseFields(row.fields);
  return {
    post_id: row.id,
    documento_legal: typeof fields.documento_legal === "string" ? fields.documento_legal : "",
    ordem: typeof fields.ordem === "number" ? fields.ordem : 0,
    slug: row.slug,
    title: row.title,
    status: effectiveStatus(row, now),
    path: postPath(row),
    url: postUrl(site, row, platformDomain),
  };
}

/**
 * Writes one legal document as a page of the site, on the site's group (a site the directory does not know
 * is the unknown site it is); every refusal and failure comes back as data.
 */
export async function upsertLegalPage(
  worker: WorkerEnv,
  log: Logger,
  input: LegalPageWrite,
): Promise<LegalPageResult> {
  try {
    const invalid = checkInput(input);
    if (invalid) return invalid;
    const env = typeof input.site_id === "string" ? await siteEnv(worker, input.site_id) : null;
    if (!env) return refused("NOT_FOUND", "Unknown site.");
    return await writeLegalPage(env, contentServices(env, log), input);
  } catch (error) {
    if (error instanceof ApiError) return refused(error.code, error.detail ?? error.code);
    log.error("legal_page_write_failed", { site_id: input.site_id, ...errorFields(error) });
    return refused("INTERNAL_ERROR", "The page could not be written.");
  }
}

async function writeLegalPage(env: Env, services: Services, input: LegalPageWrite): Promise<LegalPageResult> {
  const site = await getSite(env.DB, input.site_id);
  if (!site || INACTIVE_SITE_STATUSES.has(site.status)) return refused("NOT_FOUND", "Unknown site.");
  if (!(await getPostType(env.DB, site.id, "page"))) {
    return refused("UNKNOWN_POST_TYPE", "The site has no enabled post type 'page'.");
  }
  const title = input.title.trim();
  const blocks_json = blocksText(input.blocks) ?? '{"blocks":[]}';
  const body = { title, blocks_json, hash: await generatorHash(title, blocks_json) };
  const language = site.default_language;
  const now = new Date().toISOString();
  const page = (row: PostRow) => legalPage(row, site, env.PLATFORM_DOMAIN, now);

  // Two rounds: a concurrent generation may insert the page between our lookup and our insert.
  for (let round = 0; round < 2; round++) {
    const existing =
      (await legalPageOf(env.DB, site.id, language, input.fields.documento_legal)) ??
      (await postsBySlug(env.DB, site.id, input.slug, language))[0] ??
      null;
    if (!existing) {
      const persona = await contextPersona(env.DB, site.id, {
        userId: input.user_id,
        displayName: site.name,
      });
      const row: PostRow = {
        id: newId(),
        site_id: site.id,
        slug: input.slug,
        language,
        post_type: "page",
        title,
        summary: null,
        blocks_json,
        status: "draft",
        access: "public",
        published_at: null,
        author_slug: persona.slug,
        author_name: persona.display_name,
        author_user_id: input.user_id,
        featured_image_id: null,
        seo_json: "{}",
        created_by_key_id: null,
        // The person who generated it (through sites; identity's display name is not read here).
        ...creationStamp(generator(input.user_id)),
        review_requested: 0,
        fields: JSON.stringify({ ...input.fields, gerador_hash: body.hash }),
        created_at: now,
        updated_at: now,
        revision: 0,
      };
      try {
        await batch(env.DB, [insertPostStatement(env.DB, row)]);
        return { ok: true, resultado: "criada", adotada: false, page: page(row) };
      } catch (error) {
        if (error instanceof Error && /UNIQUE constraint failed: posts\./i.test(error.message)) continue;
        throw error;
      }
    }
    if (existing.post_type !== "page") {
      return refused("SLUG_TAKEN", `A post that is not a page already uses the slug ${input.slug}.`);
    }
    return adoptOrRegenerate(env, services, site, existing, body, input, page);
  }
  return refused("SLUG_TAKEN", `The slug ${input.slug} is taken in the site's language.`);
}

async function adoptOrRegenerate(
  env: Env,
  services: Services,
  site: NonNullable<Awaited<ReturnType<typeof getSite>>>,
  first: PostRow,
  body: { title: string; blocks_json: string; hash: string },
  input: Pick<LegalPageWrite, "fields" | "user_id">,
  page: (row: PostRow) => LegalPage,
): Promise<LegalPageResult> {
  const { fields } = input;
  const planned = nextOf(first, body, fields, await isUntouched(first));
  const result = (resultado: LegalPageOutcome, row: PostRow): LegalPageResult => ({
    ok: true,
    resultado,
    adotada: resultado === "existente_publicada" || resultado === "existente_preservada",
    page: page(row),
  });
  // Generating again what is already there writes nothing (no revision, no event).
  if (samePage(first, planned.next)) return result(planned.resultado, first);

  const now = new Date().toISOString();
  const publicTypes = await publicTypeSlugs(env.DB, site.id);
  let resultado = planned.resultado;
  const pending: { effects: PostEffect[] } = { effects: [] };
  const { next } = await editPost(
    env,
    site.id,
    first,
    generator(input.user_id),
    async (existing) => {
      const decided = nextOf(existing, body, fields, await isUntouched(existing));
      resultado = decided.resultado;
      return decided.next;
    },
    (existing, next) => {
      pending.effects = editEffects(site, existing, next, now, publicTypes, env.PLATFORM_DOMAIN);
      return pending.effects.map((effect) => effectAfterUpdateStatement(env.DB, effect, now));
    },
  );
  await deliverEffects(env, services, pending.effects);
  return result(resultado, next);
}

/** The site's legal pages that exist (not archived or deleted), in `ordem`; none for a site content does not know. */
export async function legalPages(worker: WorkerEnv, siteId: string): Promise<LegalPage[]> {
  const env = typeof siteId === "string" ? await siteEnv(worker, siteId) : null;
  if (!env) return [];
  const site = await getSite(env.DB, siteId);
  if (!site || INACTIVE_SITE_STATUSES.has(site.status)) return [];
  const now = new Date().toISOString();
  const rows = await legalPagesOf(env.DB, site.id, site.default_language);
  return rows.map((row) => legalPage(row, site, env.PLATFORM_DOMAIN, now));
}
