/** The documents of one sector: e-commerce returns (CDC), health data, children's data, service contracts. */
import { canalDoTitular, controlador, type LegalText, responsavel } from "./sections";

/** Política de Trocas e Devoluções (CDC arts. 18, 26 e 49; Decreto nº 7.962/2013). */
export const politicaDeTrocas: LegalText = (c) => [
  {
    titulo: "1. Direito de arrependimento (7 dias)",
    paragrafos: [
      "Nas compras feitas pelo site [NOME DO SITE], você pode desistir da compra em até 7 (sete) dias corridos a contar do recebimento do produto, sem precisar justificar (art. 49 do Código de Defesa do Consumidor). Os valores pagos, inclusive o frete, serão devolvidos integralmente e atualizados, pelo mesmo meio de pagamento usado na compra.",
      "Para exercer o arrependimento, escreva para [E-MAIL DE CONTATO] informando o número do pedido. Enviaremos as instruções de devolução sem custo para você.",
    ],
  },
  {
    titulo: "2. Produtos com defeito",
    paragrafos: [
      "Produtos com vício podem ser reclamados em até 30 dias (produtos não duráveis) ou 90 dias (produtos duráveis) do recebimento, ou da constatação do defeito, se oculto (art. 26 do CDC). Se o defeito não for sanado em até 30 dias, você poderá escolher entre a substituição do produto, a devolução do valor pago ou o abatimento proporcional do preço (art. 18 do CDC).",
    ],
  },
  {
    titulo: "3. Trocas por outros motivos",
    paragrafos: [
      "Trocas de produtos sem defeito por tamanho, cor ou preferência, fora do prazo de arrependimento, são uma cortesia sujeita às seguintes condições: [CONDIÇÕES DE TROCA POR CORTESIA].",
    ],
  },
  {
    titulo: "4. Como devolver",
    itens: [
      "o produto deve ser devolvido com os acessórios e, se possível, na embalagem original;",
      "o reembolso é processado após o recebimento e a conferência do produto, em até [PRAZO DE REEMBOLSO EM DIAS] dias;",
      "compras com cartão de crédito são estornadas na fatura, conforme o prazo da administradora.",
    ],
  },
  {
    titulo: "5. Atendimento",
    paragrafos: [
      `Fornecedor: ${controlador(c)}. Atendimento: [E-MAIL DE CONTATO]. Confirmaremos imediatamente o recebimento de cada pedido de arrependimento ou reclamação (Decreto nº 7.962/2013, art. 5º).`,
    ],
  },
];

/** Aviso sobre Tratamento de Dados de Saúde (LGPD arts. 5º, II, 11 e 13; Lei nº 13.787/2018). */
export const avisoDadosDeSaude: LegalText = (c) => [
  {
    titulo: "1. Dados sensíveis",
    paragrafos: [
      `Informações sobre a sua saúde são dados pessoais sensíveis (art. 5º, II, da LGPD) e recebem proteção reforçada. Este aviso complementa a Política de Privacidade de ${responsavel(c)}.`,
    ],
  },
  {
    titulo: "2. Quando e por que tratamos dados de saúde",
    itens: [
      "para prestar o atendimento que você solicitar, por profissionais de saúde ou sob a sua responsabilidade (tutela da saúde, art. 11, II, f);",
      "para manter o prontuário pelo prazo mínimo de 20 anos exigido pela Lei nº 13.787/2018 (obrigação legal, art. 11, II, a);",
      "em outras situações, somente com o seu consentimento específico e destacado (art. 11, I).",
    ],
  },
  {
    titulo: "3. O que não fazemos",
    itens: [
      "não usamos dados de saúde para publicidade nem os compartilhamos para obter vantagem econômica (art. 11, § 4º);",
      "não pedimos informações de saúde por formulários abertos do site: envie-as apenas pelos canais de atendimento indicados;",
      "não compartilhamos dados com operadoras de planos de saúde para seleção de riscos (art. 11, § 5º).",
    ],
  },
  {
    titulo: "4. Sigilo e segurança",
    paragrafos: [
      "Os dados de saúde são acessados somente por quem precisa deles para o atendimento, sob dever de sigilo profissional, e são armazenados com controles de acesso e registro de quem os consultou.",
    ],
  },
  {
    titulo: "5. Seus direitos",
    paragrafos: [
      `Você pode exercer os direitos do art. 18 da LGPD falando com ${canalDoTitular(c)}. Responsável técnico: [NOME E REGISTRO PROFISSIONAL DO RESPONSÁVEL TÉCNICO].`,
    ],
  },
];

/** Política de Dados de Crianças e Adolescentes (LGPD art. 14; ECA, Lei nº 8.069/1990). */
export const dadosDeCriancas: LegalText = (c) => [
  {
    titulo: "1. Melhor interesse",
    paragrafos: [
      `Os dados pessoais de crianças e adolescentes tratados por ${responsavel(c)} no site [NOME DO SITE] e nos serviços educacionais são tratados sempre no seu melhor interesse (art. 14 da LGPD e Estatuto da Criança e do Adolescente).`,
    ],
  },
  {
    titulo: "2. Consentimento dos pais ou responsáveis",
    paragrafos: [
      "Dados de crianças (até 12 anos incompletos) só são coletados com o consentimento específico e em destaque de pelo menos um dos pais ou do responsável legal, salvo quando necessários para contatá-los ou para a proteção da criança (art. 14, §§ 1º e 3º). Verificamos, com os meios disponíveis, que o consentimento foi dado pelo responsável.",
    ],
  },
  {
    titulo: "3. Quais dados e para quê",
    itens: [
      "dados de identificação e de contato do aluno e dos responsáveis, para a matrícula e a comunicação com a família;",
      "dados de frequência, avaliações e histórico escolar, para prestar o serviço educacional e cumprir a legislação de ensino;",
      "imagens de alunos só são divulgadas com autorização específica dos responsáveis.",
    ],
  },
  {
    titulo: "4. Jogos, aplicações e atividades on-line",
    paragrafos: [
      "A participação em atividades on-line não é condicionada ao fornecimento de dados além dos estritamente necessários (art. 14, § 4º).",
    ],
  },
  {
    titulo: "5. Contato",
    paragrafos: [`Pais e responsáveis podem falar com ${canalDoTitular(c)}.`],
  },
];

/** Termos de Contratação de Serviços (CDC arts. 6º, 39, 40 e 49; Código Civil arts. 593 a 609). */
export const termosDeServicos: LegalText = (c) => [
  {
    titulo: "1. Partes e objeto",
    paragrafos: [
      `Estes termos regem a contratação dos serviços oferecidos no site [NOME DO SITE] por ${controlador(c)} ("prestador") e por você ("cliente"). O escopo, o preço e o prazo de cada serviço constam do orçamento ou da proposta aceita pelo cliente, que faz parte destes termos.`,
    ],
  },
  {
    titulo: "2. Orçamento",
    paragrafos: [
      "O orçamento discrimina o valor da mão de obra, dos materiais e equipamentos, as condições de pagamento e as datas de início e de término, e vale por 10 dias a contar do recebimento, salvo outro prazo nele indicado (art. 40 do CDC). Nenhum serviço é executado sem autorização expressa do cliente (art. 39, VI).",
    ],
  },
  {
    titulo: "3. Pagamento",
    paragrafos: ["Formas e prazos de pagamento: [CONDIÇÕES DE PAGAMENTO]."],
  },
  {
    titulo: "4. Desistência e cancelamento",
    paragrafos: [
      "Serviços contratados pelo site podem ser cancelados em até 7 dias da contratação, com devolução integral dos valores pagos (art. 49 do CDC). Depois desse prazo, o cancelamento segue as condições da proposta: [CONDIÇÕES DE CANCELAMENTO].",
    ],
  },
  {
    titulo: "5. Garantia",
    paragrafos: [
      "O cliente pode reclamar de falhas na execução em até 90 dias do término do serviço (art. 26, II, do CDC); o prestador refará o serviço sem custo adicional, ou devolverá ou abaterá o valor, à escolha do cliente (art. 20).",
    ],
  },
  {
    titulo: "6. Contato e foro",
    paragrafos: [
      "Atendimento: [E-MAIL DE CONTATO]. Foro: comarca de [CIDADE/UF DO FORO], ressalvado ao consumidor o foro do seu domicílio.",
    ],
  },
];
