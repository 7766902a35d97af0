/** Política de Cookies (LGPD; Guia orientativo da ANPD sobre cookies e proteção de dados pessoais, 2022). */
import type { LegalText } from "./sections";

export const politicaDeCookies: LegalText = () => [
  {
    titulo: "1. O que são cookies",
    paragrafos: [
      "Cookies são pequenos arquivos que o site [NOME DO SITE] ([ENDEREÇO DO SITE]) grava no seu navegador para lembrar informações sobre a sua visita. Tecnologias semelhantes (armazenamento local, pixels) seguem as mesmas regras desta política.",
    ],
  },
  {
    titulo: "2. Cookies que usamos",
    itens: [
      "<b>Estritamente necessários</b>: permitem o funcionamento do site (segurança, preferências de privacidade, carrinho ou sessão). Não dependem de consentimento e não podem ser desativados pelo site;",
      "<b>Desempenho e estatística</b>: medem a audiência de forma agregada, para entendermos quais páginas são mais visitadas e melhorarmos o site;",
      "<b>Funcionalidade</b>: lembram escolhas como idioma e tema;",
      "<b>Publicidade</b>: quando houver, exibem anúncios mais relevantes e medem a sua eficácia; só são usados com o seu consentimento.",
    ],
  },
  {
    titulo: "3. Seu consentimento",
    paragrafos: [
      "Cookies não essenciais só são gravados depois que você os aceita no aviso de cookies. Você pode mudar a sua escolha a qualquer momento pelo mesmo aviso ou apagando os cookies do navegador; recusar cookies não essenciais não impede o uso do site.",
    ],
  },
  {
    titulo: "4. Como gerenciar cookies no navegador",
    paragrafos: [
      "Todos os navegadores permitem bloquear ou apagar cookies nas suas configurações de privacidade. Bloquear cookies estritamente necessários pode fazer algumas funções do site deixarem de funcionar.",
    ],
  },
  {
    titulo: "5. Mais informações",
    paragrafos: [
      "O tratamento de dados pessoais por meio de cookies segue a nossa Política de Privacidade. Dúvidas: [E-MAIL DE CONTATO].",
    ],
  },
];
