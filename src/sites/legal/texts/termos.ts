/** Termos de Uso (Marco Civil da Internet, Código de Defesa do Consumidor, Código Civil). */
import { controlador, type LegalText } from "./sections";

export const termosDeUso: LegalText = (c) => [
  {
    titulo: "1. Aceitação",
    paragrafos: [
      `Estes Termos de Uso regulam o acesso e o uso do site [NOME DO SITE] ([ENDEREÇO DO SITE]), mantido por ${controlador(c)}. Ao usar o site, você declara ter lido e aceitado estes termos e a nossa Política de Privacidade. Se não concordar, não utilize o site.`,
    ],
  },
  {
    titulo: "2. Uso permitido",
    paragrafos: ["Você se compromete a usar o site de boa-fé e de acordo com a lei. É proibido:"],
    itens: [
      "violar direitos de terceiros, inclusive de propriedade intelectual, imagem e privacidade;",
      "enviar conteúdo ilícito, ofensivo, discriminatório, enganoso ou que contenha vírus ou código malicioso;",
      "tentar acessar áreas restritas, burlar mecanismos de segurança ou sobrecarregar a infraestrutura do site;",
      "coletar dados de outros usuários ou do site por meios automatizados sem autorização.",
    ],
  },
  {
    titulo: "3. Conteúdo e propriedade intelectual",
    paragrafos: [
      "Textos, imagens, marcas, logotipos e demais conteúdos do site pertencem a nós ou aos seus licenciantes e são protegidos pela Lei nº 9.610/1998 (direitos autorais) e pela Lei nº 9.279/1996 (propriedade industrial). É permitido compartilhar links e citar trechos com indicação da fonte; qualquer outro uso depende de autorização prévia e por escrito.",
    ],
  },
  ...(c.setor === "ecommerce"
    ? [
        {
          titulo: "4. Compras",
          paragrafos: [
            "Preços, condições de pagamento, prazos de entrega e estoque são informados na página de cada produto e no resumo do pedido, antes da confirmação. O pedido só é concluído após a confirmação do pagamento. O direito de arrependimento, trocas e devoluções seguem a Política de Trocas e Devoluções e o Código de Defesa do Consumidor (Lei nº 8.078/1990).",
          ],
        },
      ]
    : []),
  ...(c.setor === "servicos"
    ? [
        {
          titulo: "4. Contratação de serviços",
          paragrafos: [
            "A contratação de serviços oferecidos no site segue os Termos de Contratação de Serviços e o orçamento ou proposta aceito por você.",
          ],
        },
      ]
    : []),
  {
    titulo: "5. Links e serviços de terceiros",
    paragrafos: [
      "O site pode conter links para sites de terceiros, que têm os seus próprios termos e políticas. Não controlamos nem respondemos pelo conteúdo desses sites.",
    ],
  },
  {
    titulo: "6. Responsabilidade",
    paragrafos: [
      "Empenhamo-nos para manter o site disponível e as informações corretas e atualizadas, mas o site pode passar por interrupções para manutenção ou por causas fora do nosso controle. Nada nestes termos exclui ou limita direitos que a legislação de defesa do consumidor assegura a você.",
    ],
  },
  {
    titulo: "7. Alterações",
    paragrafos: [
      "Podemos alterar estes termos a qualquer momento; a versão vigente estará sempre nesta página. Alterações relevantes serão destacadas no site.",
    ],
  },
  {
    titulo: "8. Lei aplicável e foro",
    paragrafos: [
      "Estes termos são regidos pelas leis da República Federativa do Brasil. Fica eleito o foro da comarca de [CIDADE/UF DO FORO], ressalvado ao consumidor o direito de propor a ação no foro do seu domicílio (art. 101, I, do Código de Defesa do Consumidor).",
      "Contato: [E-MAIL DE CONTATO].",
    ],
  },
];
