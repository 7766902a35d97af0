/** Política de Privacidade (LGPD, Lei nº 13.709/2018). */
import { canalDoTitular, controlador, type LegalText, responsavel } from "./sections";

const finalidadesPorSetor: Record<string, string[]> = {
  ecommerce: [
    "processar pedidos, pagamentos, entregas, trocas e devoluções (execução de contrato, art. 7º, V);",
    "emitir notas fiscais e cumprir obrigações fiscais e consumeristas (obrigação legal, art. 7º, II);",
    "prevenir fraudes em pagamentos (legítimo interesse e proteção do crédito, art. 7º, IX e X);",
  ],
  saude: [
    "agendar e prestar atendimentos de saúde, inclusive por telessaúde, e manter o prontuário exigido pela legislação (tutela da saúde, art. 11, II, f, e obrigação legal);",
  ],
  educacao: [
    "realizar matrículas, prestar os serviços educacionais, emitir certificados e manter o histórico escolar exigido pela legislação (execução de contrato e obrigação legal);",
  ],
  servicos: [
    "elaborar orçamentos, contratar, executar e faturar os serviços solicitados (procedimentos preliminares e execução de contrato, art. 7º, V);",
  ],
};

export const politicaDePrivacidade: LegalText = (c) => [
  {
    titulo: "1. Quem somos",
    paragrafos: [
      `Esta Política de Privacidade explica como ${controlador(c)} ("nós"), controladora dos dados pessoais tratados no site [NOME DO SITE] ([ENDEREÇO DO SITE]), coleta, usa, compartilha e protege os seus dados pessoais, nos termos da Lei Geral de Proteção de Dados Pessoais (Lei nº 13.709/2018, "LGPD").`,
    ],
  },
  {
    titulo: "2. Dados que coletamos",
    itens: [
      "dados que você nos informa: nome, e-mail, telefone e o conteúdo das mensagens enviadas por formulários;",
      ...(c.setor === "ecommerce"
        ? [
            "dados de compra: CPF, endereço de entrega e de cobrança, itens adquiridos e histórico de pedidos;",
          ]
        : []),
      ...(c.setor === "saude"
        ? [
            "dados pessoais sensíveis referentes à saúde, apenas quando necessários ao atendimento (veja o Aviso sobre Dados de Saúde);",
          ]
        : []),
      ...(c.setor === "educacao"
        ? ["dados de alunos e responsáveis necessários à matrícula e à vida escolar;"]
        : []),
      "dados de navegação: endereço IP, data e hora de acesso, páginas visitadas, navegador e dispositivo, coletados automaticamente e por cookies (veja a Política de Cookies);",
    ],
  },
  {
    titulo: "3. Para que usamos os seus dados e com qual base legal",
    itens: [
      "responder a contatos e solicitações (procedimentos preliminares a contrato ou legítimo interesse, art. 7º, V e IX);",
      ...(finalidadesPorSetor[c.setor] ?? []),
      "enviar comunicações e novidades, somente com o seu consentimento, que pode ser revogado a qualquer momento (art. 7º, I);",
      "manter a segurança do site e guardar os registros de acesso pelo prazo de 6 meses exigido pelo Marco Civil da Internet (Lei nº 12.965/2014, art. 15; obrigação legal, art. 7º, II);",
      "medir a audiência e melhorar o site (legítimo interesse, art. 7º, IX, ou consentimento, quando exigido para cookies não essenciais).",
    ],
  },
  {
    titulo: "4. Com quem compartilhamos",
    paragrafos: [
      "Não vendemos dados pessoais. Compartilhamos dados somente com: fornecedores que operam o site em nosso nome (hospedagem, envio de e-mails, meios de pagamento, transportadoras, conforme o caso), que atuam como operadores e seguem as nossas instruções; autoridades públicas, quando houver obrigação legal ou ordem judicial.",
      "Alguns fornecedores podem armazenar dados fora do Brasil; nesses casos adotamos as salvaguardas previstas no art. 33 da LGPD.",
    ],
  },
  {
    titulo: "5. Por quanto tempo guardamos",
    paragrafos: [
      "Guardamos os dados pelo tempo necessário às finalidades acima e aos prazos legais (por exemplo, 6 meses para registros de acesso e 5 anos para documentos fiscais). Depois disso, os dados são eliminados ou anonimizados.",
    ],
  },
  {
    titulo: "6. Seus direitos",
    paragrafos: ["Nos termos do art. 18 da LGPD, você pode, a qualquer momento e gratuitamente:"],
    itens: [
      "confirmar a existência de tratamento e acessar os seus dados;",
      "corrigir dados incompletos, inexatos ou desatualizados;",
      "pedir a anonimização, o bloqueio ou a eliminação de dados desnecessários ou tratados em desconformidade com a lei;",
      "pedir a portabilidade dos dados a outro fornecedor;",
      "pedir a eliminação dos dados tratados com base no seu consentimento e revogar esse consentimento;",
      "saber com quem compartilhamos os seus dados;",
      "opor-se a tratamento realizado em desconformidade com a LGPD e peticionar à Autoridade Nacional de Proteção de Dados (ANPD).",
    ],
    fecho: [`Para exercer esses direitos, fale com ${canalDoTitular(c)}. Responderemos em até 15 dias.`],
  },
  {
    titulo: "7. Segurança",
    paragrafos: [
      "Adotamos medidas técnicas e administrativas para proteger os dados pessoais contra acessos não autorizados e situações acidentais ou ilícitas, como conexão criptografada (HTTPS) e controle de acesso. Em caso de incidente de segurança que possa causar risco ou dano relevante, comunicaremos os titulares afetados e a ANPD (art. 48).",
    ],
  },
  {
    titulo: "8. Crianças e adolescentes",
    paragrafos: [
      c.setor === "educacao"
        ? "Dados de crianças e adolescentes são tratados no seu melhor interesse (art. 14 da LGPD), conforme a Política de Dados de Crianças e Adolescentes."
        : "Este site não se destina a menores de 18 anos. Se soubermos que coletamos dados de uma criança sem o consentimento de um dos pais ou do responsável legal, eliminaremos esses dados.",
    ],
  },
  {
    titulo: "9. Alterações desta política",
    paragrafos: [
      `Esta política pode ser atualizada; a versão vigente estará sempre nesta página. Dúvidas: [E-MAIL DE CONTATO]. Responsável: ${responsavel(c)}.`,
    ],
  },
];
