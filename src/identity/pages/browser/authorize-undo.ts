/** `authorize-undo.js`: "this was not me" from the mail about an AI agent's new grant. */
import { disownPage } from "./shared/disown";

disownPage("/oauth/undo", "The agent was revoked and every session of the account signed out.");
