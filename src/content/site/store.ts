/**
 * Content's own projection of sites (pushed by the sites service over RPC) and the site's post types,
 * through drizzle's query builder but for the built-in types' seed (an `INSERT … SELECT` guarded by the
 * site's absence).
 */
import { and, asc, eq, isNull, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { postTypes, sites } from "../../../schema/content";
import type { SiteProjection } from "../../lib/rpc";
import { batch } from "../../lib/sql";
import { formsAppStatements } from "../forms/store";
import { endStalePreviewsStatement } from "../preview/store";

/** Site states in which the site's keys stop working. */
export const INACTIVE_SITE_STATUSES = new Set(["deleted", "archived"]);

/**
 * Built-in post types every site starts with, created once with the site's first push (never re-inserted:
 * a later push leaves the catalogue alone); applets add more (public or private) with `definePostType`.
 */
export const BUILTIN_POST_TYPES = [
  { slug: "post", name: "Posts", is_public: 1 },
  { slug: "page", name: "Pages", is_public: 1 },
] as const;

export async function upsertSite(db: D1Database, site: SiteProjection, now: string): Promise<void> {
  const statements = [
    // Before the site row: seeds the catalogue only when this push creates the site.
    ...BUILTIN_POST_TYPES.map((t) =>
      db
        .prepare(
          `INSERT OR IGNORE INTO post_types (site_id, slug, name, is_public, created_at)
           SELECT ?, ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM sites WHERE id = ?)`,
        )
        .bind(site.id, t.slug, t.name, t.is_public, now, site.id),
    ),
    // An older push never overwrites a newer one (pushes may arrive out of order). `org_since` moves when
    // the owner organization changes (every SET expression reads the row as it was before the update).
    // `content_version` moves with every applied push: the site's URLs are part of its public answers.
    drizzle(db)
      .insert(sites)
      .values({
        id: site.id,
        org_id: site.org_id,
        slug: site.slug,
        name: site.name,
        default_language: site.default_language,
        status: site.status,
        primary_domain: site.primary_domain,
        updated_at: site.updated_at,
        synced_at: now,
        org_since: site.updated_at,
      })
      .onConflictDoUpdate({
        target: sites.id,
        set: {
          org_id: sql`excluded.org_id`,
          slug: sql`excluded.slug`,
          name: sql`excluded.name`,
          default_language: sql`excluded.default_language`,
          status: sql`excluded.status`,
          primary_domain: sql`excluded.primary_domain`,
          updated_at: sql`excluded.updated_at`,
          synced_at: sql`excluded.synced_at`,
          org_since: sql`CASE WHEN ${sites.org_id} = excluded.org_id THEN ${sites.org_since} ELSE excluded.updated_at END`,
          org_changed_at: sql`CASE WHEN ${sites.org_id} = excluded.org_id THEN ${sites.org_changed_at} ELSE excluded.synced_at END`,
          content_version: sql`${sites.content_version} + 1`,
        },
        setWhere: sql`excluded.updated_at >= ${sites.updated_at}`,
      }),
    ...formsAppStatements(db, site),
    // After the push: a site no longer active, or owned by another organization, ends its preview links.
    endStalePreviewsStatement(db, site.id, now),
  ];
  await batch(db, statements);
}

const SITE_COLUMNS = {
  id: sites.id,
  org_id: sites.org_id,
  slug: sites.slug,
  name: sites.name,
  default_language: sites.default_language,
  status: sites.status,
  primary_domain: sites.primary_domain,
  updated_at: sites.updated_at,
};

export async function getSite(db: D1Database, siteId: string): Promise<SiteProjection | null> {
  const row = await drizzle(db).select(SITE_COLUMNS).from(sites).where(eq(sites.id, siteId)).get();
  return row ?? null;
}

/** The site as the dashboard routes read it: the projection and its content version (edge cache keys). */
export type StaffSite = SiteProjection & { content_version: number };

export async function getStaffSite(db: D1Database, siteId: string): Promise<StaffSite | null> {
  const row = await drizzle(db)
    .select({ ...SITE_COLUMNS, content_version: sites.content_version })
    .from(sites)
    .where(eq(sites.id, siteId))
    .get();
  return row ?? null;
}

export type PostTypeRow = Pick<typeof postTypes.$inferSelect, "slug" | "name" | "is_public">;

const POST_TYPE_COLUMNS = { slug: postTypes.slug, name: postTypes.name, is_public: postTypes.is_public };

export async function listPostTypes(db: D1Database, siteId: string): Promise<PostTypeRow[]> {
  return drizzle(db)
    .select(POST_TYPE_COLUMNS)
    .from(postTypes)
    .where(and(eq(postTypes.site_id, siteId), isNull(postTypes.disabled_at)))
    .orderBy(asc(postTypes.slug))
    .all();
}

export async function getPostType(db: D1Database, siteId: string, slug: string): Promise<PostTypeRow | null> {
  const row = await drizzle(db)
    .select(POST_TYPE_COLUMNS)
    .from(postTypes)
    .where(and(eq(postTypes.site_id, siteId), eq(postTypes.slug, slug), isNull(postTypes.disabled_at)))
    .get();
  return row ?? null;
}

/** Creates or updates a type; a removed (disabled) type defined again comes back with its posts. */
export async function upsertPostType(
  db: D1Database,
  input: { site_id: string; slug: string; name: string; public: boolean },
  now: string,
): Promise<void> {
  await drizzle(db)
    .insert(postTypes)
    .values({
      site_id: input.site_id,
      slug: input.slug,
      name: input.name,
      is_public: input.public ? 1 : 0,
      created_at: now,
    })
    .onConflictDoUpdate({
      target: [postTypes.site_id, postTypes.slug],
      set: { name: sql`excluded.name`, is_public: sql`excluded.is_public`, disabled_at: null },
    })
    .run();
}

/**
 * Disables a type (its applet uninstalled): no longer listed nor accepted for new posts, and private, so
 * its posts leave public view; the posts themselves are kept, untouched. False when there was none.
 */
export async function disablePostType(
  db: D1Database,
  siteId: string,
  slug: string,
  now: string,
): Promise<boolean> {
  const result = await drizzle(db)
    .update(postTypes)
    .set({ disabled_at: now, is_public: 0 })
    .where(and(eq(postTypes.site_id, siteId), eq(postTypes.slug, slug), isNull(postTypes.disabled_at)))
    .run();
  return result.meta.changes > 0;
}
