/**
 * The applets (apps) catalog of the platform: what a site may install. Code, not data: an app is
 * shipped with the renderer and the services that read its switch, so a new app is a deploy. Names and
 * descriptions are in Portuguese (the platform's market is Brazil); slugs are stable identifiers in
 * English, the key of `settings.applets.<slug>` (they satisfy the validator's `APPLET_SLUG`).
 *
 * An app with `post_type_template` owns a content type: installing it defines the type in content
 * (`definePostType`), uninstalling disables it (`removePostType`; its posts are kept).
 * Apps whose switch another service reads: `forms` (content's forms area and anonymous submissions,
 * through the site projection's `forms_enabled`) and `legal` (legal page generation, 409
 * APPLET_DISABLED when off).
 */

export interface PostTypeTemplate {
  /** The content type's slug in content (a post type slug: lower-case words joined by `-` or `_`). */
  slug: string;
  name: string;
  /** `false`: the type is listed to secret keys only and its posts never show publicly. */
  public: boolean;
}

export interface Applet {
  slug: string;
  name: string;
  description: string;
  post_type_template?: PostTypeTemplate;
}

export const APPLET_CATALOG: readonly Applet[] = [
  {
    slug: "forms",
    name: "Formulários e leads",
    description:
      "Formulários de contato e captação com proteção antispam; os leads ficam no painel e podem ser exportados.",
  },
  {
    slug: "legal",
    name: "Páginas legais",
    description:
      "Gera política de privacidade (LGPD), termos de uso e política de cookies conforme o perfil e o setor do site.",
  },
  {
    slug: "cookie-consent",
    name: "Aviso de cookies (LGPD)",
    description: "Banner de consentimento de cookies com registro das escolhas do visitante.",
  },
  {
    slug: "whatsapp",
    name: "Botão do WhatsApp",
    description: "Botão flutuante que abre uma conversa no WhatsApp com mensagem pronta.",
  },
  {
    slug: "newsletter",
    name: "Newsletter",
    description: "Caixa de inscrição por e-mail no rodapé e ao final dos posts.",
  },
  {
    slug: "google-analytics",
    name: "Google Analytics 4",
    description: "Mede visitas e conversões com o GA4, respeitando o consentimento de cookies.",
  },
  {
    slug: "google-tag-manager",
    name: "Google Tag Manager",
    description: "Carrega o contêiner do GTM em todas as páginas.",
  },
  {
    slug: "meta-pixel",
    name: "Pixel da Meta",
    description: "Pixel do Facebook e do Instagram para campanhas e públicos personalizados.",
  },
  {
    slug: "social-share",
    name: "Compartilhamento social",
    description: "Botões para compartilhar posts no WhatsApp, Facebook, X, LinkedIn e Telegram.",
  },
  {
    slug: "related-posts",
    name: "Posts relacionados",
    description: "Sugere leituras da mesma categoria ao final de cada post.",
  },
  {
    slug: "reading-time",
    name: "Tempo de leitura",
    description: "Mostra o tempo estimado de leitura no topo dos posts.",
  },
  {
    slug: "site-search",
    name: "Busca no site",
    description: "Campo de busca com resultados instantâneos nos posts e páginas.",
  },
  {
    slug: "comments",
    name: "Comentários",
    description: "Comentários moderados nos posts, com aprovação no painel.",
  },
  {
    slug: "pix-donations",
    name: "Doações via Pix",
    description: "Bloco de apoio com QR Code e chave Pix copia-e-cola.",
  },
  {
    slug: "appointments",
    name: "Agendamento online",
    description: "Link de agendamento de horários no cabeçalho e nas páginas de serviço.",
  },
  {
    slug: "events",
    name: "Agenda de eventos",
    description: "Eventos com data, local e inscrição, listados em uma agenda pública.",
    post_type_template: { slug: "event", name: "Eventos", public: true },
  },
  {
    slug: "portfolio",
    name: "Portfólio",
    description: "Projetos e cases com galeria de imagens, cliente e resultados.",
    post_type_template: { slug: "project", name: "Projetos", public: true },
  },
  {
    slug: "faq",
    name: "Perguntas frequentes",
    description: "Perguntas e respostas agrupadas por tema, com marcação para buscadores.",
    post_type_template: { slug: "faq", name: "Perguntas frequentes", public: true },
  },
  {
    slug: "testimonials",
    name: "Depoimentos",
    description: "Depoimentos de clientes com foto, nome e avaliação.",
    post_type_template: { slug: "testimonial", name: "Depoimentos", public: true },
  },
  {
    slug: "team",
    name: "Equipe",
    description: "Perfis da equipe com cargo, foto e redes sociais.",
    post_type_template: { slug: "team-member", name: "Equipe", public: true },
  },
  {
    slug: "restaurant-menu",
    name: "Cardápio",
    description: "Pratos e bebidas com preço, categoria e restrições alimentares.",
    post_type_template: { slug: "menu-item", name: "Itens do cardápio", public: true },
  },
  {
    slug: "real-estate",
    name: "Imóveis",
    description: "Anúncios de imóveis para venda e aluguel com ficha técnica e fotos.",
    post_type_template: { slug: "property", name: "Imóveis", public: true },
  },
  {
    slug: "jobs",
    name: "Vagas de emprego",
    description: "Vagas abertas com requisitos, regime de contratação e candidatura.",
    post_type_template: { slug: "job", name: "Vagas", public: true },
  },
  {
    slug: "editorial-calendar",
    name: "Pauta editorial",
    description: "Pautas e briefings da redação, visíveis só para a equipe (nunca publicados).",
    post_type_template: { slug: "editorial-brief", name: "Pautas", public: false },
  },
];

export function findApplet(slug: string): Applet | null {
  return APPLET_CATALOG.find((a) => a.slug === slug) ?? null;
}
