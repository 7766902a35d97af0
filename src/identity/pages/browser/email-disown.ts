/** `email-disown.js`: "this was not me" from the mail to an address someone added to an account. */
import { disownPage } from "./shared/disown";

disownPage("/emails/disown", "The address was removed and every session of the account signed out.");
