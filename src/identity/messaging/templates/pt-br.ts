/** The Brazilian Portuguese templates: one per message kind, the same facts as the English ones. */
import { ADDED_ADDRESS_COOLING_OFF_S, DISOWN_TOKEN_TTL_S } from "../../core/config";
import type { FactorsLeftRef, PasskeyRef, SsoNoticeKind } from "../messages";
import type { Templates } from "./template";

const COOLING_OFF_HOURS = ADDED_ADDRESS_COOLING_OFF_S / 3600;
const LINK_DAYS = DISOWN_TOKEN_TTL_S / (24 * 3600);

/** `2026-11-28` → `28/11/2026`. */
const dateBr = (iso: string) => iso.slice(0, 10).split("-").reverse().join("/");

const quoted = (p: PasskeyRef) =>
  p.name ? JSON.stringify(p.name) : `uma chave de acesso sem nome adicionada em ${dateBr(p.created_at)}`;

function passkeyList(passkeys: PasskeyRef[]): string {
  const n = passkeys.length;
  return `${n} ${n === 1 ? "chave de acesso" : "chaves de acesso"} (${passkeys.map(quoted).join(", ")})`;
}

function factorsLeftText(left: FactorsLeftRef): string {
  const items = [
    ...(left.totp ? ["um aplicativo autenticador (TOTP)"] : []),
    ...(left.phone ? [`o telefone ${left.phone}`] : []),
    ...(left.passkeys.length > 0 ? [passkeyList(left.passkeys)] : []),
  ];
  const codes =
    left.recoveryCodes > 0 ? ` Você tem ${left.recoveryCodes} códigos de recuperação não usados.` : "";
  if (items.length === 0) return `Sua conta não tem mais segundo fator nem chave de acesso.${codes}`;
  return `Ainda estão na sua conta para entrar: ${items.join("; ")}.${codes}`;
}

const FACTOR = {
  totp: {
    subject: "Um aplicativo autenticador foi adicionado à sua conta",
    what: () => "Um aplicativo autenticador (TOTP) foi adicionado à sua conta como fator de login.",
  },
  phone: {
    subject: "Um telefone foi adicionado à sua conta",
    what: (phone: string) => `O telefone ${phone} foi adicionado à sua conta como fator de login.`,
  },
  passkey: {
    subject: "Uma chave de acesso foi adicionada à sua conta",
    what: (name: string) => `Uma chave de acesso${name ? ` (${name})` : ""} foi adicionada à sua conta.`,
  },
};

const SSO: Record<SsoNoticeKind, string> = {
  set: "O login único (SSO) foi configurado na sua organização",
  changed: "O login único (SSO) da sua organização foi alterado",
  removed: "O login único (SSO) foi removido da sua organização; as sessões SSO foram encerradas",
  break_glass: "Um proprietário entrou na sua organização sem o login único (acesso de emergência)",
  undone:
    "Uma alteração do login único (SSO) da sua organização foi desfeita pelo link enviado por e-mail; as sessões SSO foram encerradas",
};

const notMe = (undo: string) =>
  `Se não foi você, ${undo} com este link, que também encerra todas as sessões (válido por ${LINK_DAYS} dias):`;

export const ptBR: Templates = {
  email_verify: ({ code }) => ({
    subject: "Confirme seu endereço de e-mail",
    paragraphs: [`Seu código de confirmação é ${code}. Se você não se cadastrou, ignore esta mensagem.`],
  }),
  email_add: ({ code }) => ({
    subject: "Confirme seu novo endereço de e-mail",
    paragraphs: [`Seu código de confirmação é ${code}. Ele expira em 10 minutos.`],
  }),
  sensitive_action: ({ code }) => ({
    subject: "Confirme uma alteração sensível",
    paragraphs: [
      `Seu código de confirmação é ${code}. Ele expira em 10 minutos. Se você não o pediu, troque sua senha.`,
    ],
  }),
  magic_link: ({ code, link }) => ({
    subject: "Seu link de acesso",
    paragraphs: [
      `Entre com o código ${code} ou abra ${link}. Ele expira em 15 minutos. Se você não o pediu, ignore esta mensagem.`,
    ],
    action: "Entrar",
  }),
  login_mfa: ({ code }) => ({
    subject: "Seu código de acesso",
    paragraphs: [`Seu código de acesso é ${code}. Ele expira em 10 minutos.`],
  }),
  password_reset: ({ code, link }) => ({
    subject: "Redefina sua senha",
    paragraphs: [
      `Seu código para redefinir a senha é ${code}, ou abra ${link}. Ele expira em 30 minutos. Se você não o pediu, ignore esta mensagem.`,
    ],
    action: "Redefinir a senha",
  }),
  invitation: ({ vars, link }) => {
    const where = vars.site ? `o site ${vars.site} de ${vars.org}` : `a organização ${vars.org}`;
    const by = vars.inviter ? `${vars.inviter} convidou você` : "Você foi convidado(a)";
    return {
      subject: vars.site ? `Convite para ${vars.site}` : `Convite para ${vars.org}`,
      paragraphs: [
        `${by} a participar de ${where} como ${vars.role}.`,
        `Aceite o convite em até 7 dias: ${link}`,
        "Se você não esperava este convite, ignore esta mensagem.",
      ],
      action: "Aceitar o convite",
    };
  },
  phone_verify: ({ code }) => ({
    subject: "Verificação de telefone",
    paragraphs: [`Seu código de verificação é ${code}.`],
  }),
  signup_notice: () => ({
    subject: "Alguém tentou se cadastrar com seu endereço",
    paragraphs: ["Já existe uma conta com este endereço. Entre, ou redefina sua senha se a esqueceu."],
  }),
  email_added_notice: ({ vars, link }) => ({
    subject: "Um endereço foi adicionado à sua conta",
    paragraphs: [
      `O endereço ${vars.address} foi adicionado à sua conta. Depois de confirmado, ele só poderá entrar e recuperar a conta ${COOLING_OFF_HOURS} horas mais tarde.`,
      `Se não foi você que o adicionou, remova-o com este link, que também encerra todas as sessões (válido por ${LINK_DAYS} dias): ${link}`,
    ],
    action: "Remover este endereço",
  }),
  email_verified_notice: ({ vars, link }) => ({
    subject: "Um endereço foi confirmado na sua conta",
    paragraphs: [
      `O endereço ${vars.address} foi confirmado na sua conta. Ele poderá entrar e recuperar a conta a partir de ${vars.usableAt} (${COOLING_OFF_HOURS} horas após a confirmação), ou imediatamente se você o tornar seu endereço principal.`,
      `Se não foi você que o adicionou, remova-o com este link, que também encerra todas as sessões (válido por ${LINK_DAYS} dias): ${link}`,
    ],
    action: "Remover este endereço",
  }),
  password_reset_notice: ({ vars, link }) => {
    const ended =
      vars.ended.length > 0
        ? ` A redefinição removeu ${passkeyList(vars.ended)}, adicionada(s) sem um código de confirmação enviado ao seu endereço principal.`
        : "";
    return {
      subject: "Sua senha foi redefinida",
      paragraphs: [
        `A senha da sua conta foi redefinida em ${vars.at} com um código enviado para ${vars.via}. Todas as sessões foram encerradas.${ended}`,
        `${factorsLeftText(vars.left)} Se não reconhecer algum deles, entre e remova-o na página da sua conta: ${link}`,
        "Se não foi você, redefina a senha de novo a partir do seu endereço principal e revise os endereços da sua conta.",
      ],
      action: "Abrir a página da conta",
    };
  },
  factor_added_notice: ({ vars, link }) => {
    const added = FACTOR[vars.kind];
    const pool = vars.alsoRecovery ? " Um novo conjunto de códigos de recuperação foi gerado junto." : "";
    return {
      subject: vars.alsoRecovery ? `${added.subject}, com novos códigos de recuperação` : added.subject,
      paragraphs: [
        `${added.what(vars.detail ?? "")}${pool}`,
        `${notMe("remova-o (e os códigos de recuperação gerados desde então)")} ${link} Depois troque sua senha.`,
      ],
      action: "Remover e encerrar todas as sessões",
    };
  },
  recovery_codes_notice: ({ link }) => ({
    subject: "Novos códigos de recuperação foram gerados para sua conta",
    paragraphs: [
      "Um novo conjunto de códigos de recuperação foi gerado para sua conta; os códigos anteriores não funcionam mais.",
      `${notMe("anule estes códigos")} ${link} Depois troque sua senha.`,
    ],
    action: "Anular os códigos e encerrar as sessões",
  }),
  sso_link: ({ code }) => ({
    subject: "Confirme o login único (SSO) da sua conta",
    paragraphs: [
      `Seu código é ${code}. Ele vincula sua conta ao login único da sua organização e expira em 15 minutos. Se você não entrou pela sua organização, ignore esta mensagem.`,
    ],
  }),
  sso_notice: ({ vars, link }) => ({
    subject: SSO[vars.kind],
    paragraphs: [
      `${SSO[vars.kind]} (${vars.owner}). Se não foi um dos proprietários, ${
        vars.undoDays
          ? `desfaça com este link, que restaura a configuração anterior (ou remove o login único, se não havia) e encerra todas as sessões SSO (funciona uma vez, por ${vars.undoDays} dias, até a próxima alteração): ${link} Depois revise os proprietários da organização.`
          : "revise agora as configurações de login único da organização e seus membros."
      }`,
    ],
    ...(vars.undoDays ? { action: "Desfazer esta alteração" } : {}),
  }),
  account_restore: ({ code }) => ({
    subject: "Mantenha sua conta",
    paragraphs: [
      `Seu código para cancelar a exclusão da sua conta é ${code}. Ele expira em 30 minutos. Se você não o pediu, ignore esta mensagem.`,
    ],
  }),
  account_deletion_notice: ({ vars }) => {
    switch (vars.kind) {
      case "scheduled":
        return {
          subject: "Sua conta será excluída",
          paragraphs: [
            `Sua conta foi agendada para exclusão e todas as sessões foram encerradas. Seus dados pessoais serão apagados depois de ${vars.eraseAfter}.`,
            `Até lá você pode mantê-la: abra ${vars.restorePage} (ou chame ${vars.cancelOperation}) com este endereço e o código que enviaremos por e-mail. Se você não pediu isto, cancele agora e troque sua senha.`,
          ],
        };
      case "cancelled":
        return {
          subject: "Sua conta não será excluída",
          paragraphs: [
            "A exclusão da sua conta foi cancelada. Entre de novo para usá-la. Se não foi você, troque sua senha.",
          ],
        };
      case "erased":
        return {
          subject: "Sua conta foi excluída",
          paragraphs: [
            "O prazo de exclusão da sua conta terminou: seus endereços, telefone, segundos fatores, chaves de acesso, sessões e participações foram apagados. Esta é a última mensagem enviada a este endereço sobre isso.",
          ],
        };
    }
  },
  oauth_grant_notice: ({ vars, link }) => ({
    subject: `Um agente de IA foi conectado à sua conta: ${vars.client}`,
    paragraphs: [
      `Você permitiu que o agente "${vars.client}" (${vars.clientId}; o nome é declarado por ele, não verificado) aja em seu nome no site ${vars.site}, com: ${vars.scopes.join(", ")}.`,
      `Se não foi você, revogue-o com este link, que também encerra todas as sessões (vale por ${vars.undoDays} dias): ${link} Depois troque sua senha. Você também pode encerrá-lo na página da sua conta.`,
    ],
    action: "Revogar o agente e sair de todas as sessões",
  }),
  integrations_ended_notice: ({ vars }) => {
    const keys = vars.apiKeys.map((k) => `chave de API "${k.name}" (${k.id}) no site ${k.site_id}`);
    const hooks = vars.webhooks.map((w) => `webhook para ${w.url} (${w.id}) no site ${w.site_id}`);
    return {
      subject: "As integrações de um ex-administrador foram encerradas",
      paragraphs: [
        `${vars.who ?? "Um ex-membro"} não administra mais as integrações do seu site (removido, com papel alterado, saiu ou teve a conta excluída), então o que criou ali foi encerrado imediatamente: ${[...keys, ...hooks].join("; ")}.`,
        "Chaves revogadas respondem 401 e webhooks excluídos não recebem mais nada. Se uma integração ainda for necessária, crie uma nova chave ou webhook e entregue a quem a opera agora.",
      ],
    };
  },
};
