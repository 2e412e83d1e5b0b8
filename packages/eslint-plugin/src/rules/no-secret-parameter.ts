import { createRule } from "../create-rule.js";
import { inputFieldListeners } from "../input-fields.js";
import { toolNameOf } from "./tool-name.js";

/** The words of a field name: `apiKey`, `api_key` and `API-KEY` all give ["api", "key"]. */
function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** Single words that name a credential. */
const SECRET_WORDS = new Set([
  "password",
  "passwd",
  "passphrase",
  "secret",
  "credential",
  "credentials",
  "apikey",
  "pin",
  "cvv",
  "cvc",
]);
/** Word pairs that name a credential: `apiKey`, `accessKey`, `privateKey`, `clientSecret` (covered above). */
const SECRET_PAIRS = new Set([
  "api key",
  "access key",
  "private key",
  "secret key",
  "session id",
  "auth token",
  "access token",
  "refresh token",
  "bearer token",
  "id token",
]);
/** `token` alone is a credential, except where it counts or pages: `maxTokens`, `pageToken`, `nextToken`. */
const TOKEN_NOT_SECRET = new Set(["page", "next", "continuation", "cursor", "max", "min", "count", "num", "sync"]);

/**
 * The credential a field name suggests, or `undefined`. The name is split into its words
 * (camelCase, snake_case, kebab-case) and only its LAST word (or last two) is judged: a credential
 * noun ends the name of the credential (`apiKey`, `userPassword`, `stripe_secret`), while a name
 * that only starts with one is about something else (`tokenLimit`, `passwordPolicyName`,
 * `secretName`, `pinnedOrderId`: "pinned" is not "pin").
 */
export function credentialWord(name: string): string | undefined {
  const w = words(name);
  const last = w.at(-1);
  if (last === undefined) return undefined;
  const previous = w.length > 1 ? w.at(-2) : undefined;
  if (previous !== undefined && SECRET_PAIRS.has(`${previous} ${last}`)) return `${previous} ${last}`;
  if (SECRET_WORDS.has(last)) return last;
  if (last === "token" && !(previous !== undefined && TOKEN_NOT_SECRET.has(previous))) return "token";
  return undefined;
}

/** `needlework/no-secret-parameter`: an input field the model would have to fill with a credential. */
export const noSecretParameter = createRule({
  name: "no-secret-parameter",
  meta: {
    type: "problem",
    docs: {
      description: "Disallow input fields named like credentials: inject the secret into the tool class instead",
    },
    schema: [],
    messages: {
      secret:
        "Input field '{{field}}' of tool '{{tool}}' is named like a credential ({{word}}): the model would have to supply it, so it would sit in the conversation. Inject the secret into the tool class (constructor injection) and drop the field.",
    },
  },
  defaultOptions: [],
  create(context) {
    return inputFieldListeners(
      context,
      (field, tool) => {
        const word = credentialWord(field.name);
        if (word)
          context.report({
            node: field.property,
            messageId: "secret",
            data: { field: field.path, tool: toolNameOf(tool), word },
          });
      },
      { arrayItems: true },
    );
  },
});
