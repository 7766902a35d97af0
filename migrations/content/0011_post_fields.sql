-- Structured fields of a post (issue 12, legal pages): a JSON object or NULL. Sites' legal page generator
-- writes `{"secao":"legal","documento_legal":"<slug>","ordem":<n>,"gerador_hash":"<sha-256>"}`; a page
-- whose `secao` is `legal` has its public URL under /legal/ (see src/content/core/effects/outbound.ts postUrl).
ALTER TABLE posts ADD COLUMN fields TEXT;

-- A site's legal pages by document (the generator's lookup), among its pages.
CREATE INDEX posts_legal_document ON posts (site_id, language, json_extract(fields, '$.documento_legal'))
  WHERE fields IS NOT NULL;
