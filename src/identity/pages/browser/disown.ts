/** `disown.js`: "this was not me" from the mail about a new second factor or password change. */
import { disownPage } from "./shared/disown";

disownPage("/disown", "It was undone and every session of the account signed out.");
