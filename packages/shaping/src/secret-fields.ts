// Field names are compared by their words, so `db_password`, `dbPassword` and `DB-PASSWORD` match
// alike while `max_tokens`, `tokenizer` or `secretary` do not.

/** Any of these words anywhere in a key marks it secret. */
const SECRET_WORDS = new Set([
  "password",
  "passwd",
  "pwd",
  "passphrase",
  "secret",
  "secrets",
  "credential",
  "credentials",
  "ssn",
  "cvv",
  "cvc",
  "pin",
]);
/** The whole key, with separators removed, is one of these. */
const SECRET_KEYS = new Set([
  "apikey",
  "xapikey",
  "authorization",
  "proxyauthorization",
  "cookie",
  "setcookie",
  "privatekey",
  "secretkey",
  "accesskey",
  "signingkey",
  "encryptionkey",
  "masterkey",
  "clientsecret",
  "creditcard",
  "creditcardnumber",
  "cardnumber",
  "ccnumber",
  "socialsecuritynumber",
  "sessionid",
  "sessiontoken",
  "auth",
]);
/** The last word of the key is one of these (`access_token`, `refreshToken`, `csrf-token`). */
const SECRET_LAST_WORDS = new Set(["token", "apikey"]);

/**
 * The lower-case words of a key: `apiKey` → `api key`, `APIKey` → `api key`, `db_password` → `db password`.
 * @internal
 */
export function keyWords(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== "");
}

/**
 * A test for keys whose whole value is secret: the default names plus `extra` (a string matches the
 * whole key or a run of its words, ignoring case and separators; a RegExp is tested on the raw key).
 * @internal
 */
export function secretFieldTest(extra: readonly (string | RegExp)[] = []): (key: string) => boolean {
  const extraWords = extra
    .filter((e): e is string => typeof e === "string")
    .map(keyWords)
    .filter((w) => w.length > 0);
  const extraPatterns = extra.filter((e): e is RegExp => e instanceof RegExp);
  const cache = new Map<string, boolean>();
  const decide = (key: string): boolean => {
    const words = keyWords(key);
    if (words.length === 0) return false;
    const joined = words.join("");
    if (
      SECRET_KEYS.has(joined) ||
      words.some((w) => SECRET_WORDS.has(w)) ||
      SECRET_LAST_WORDS.has(words[words.length - 1]!)
    )
      return true;
    if (words.length >= 2 && words[words.length - 1] === "key" && SECRET_KEYS.has(words.slice(-2).join("")))
      return true;
    for (const run of extraWords) {
      if (joined === run.join("")) return true;
      for (let i = 0; i + run.length <= words.length; i++) {
        if (run.every((w, j) => words[i + j] === w)) return true;
      }
    }
    return extraPatterns.some((p) => {
      p.lastIndex = 0;
      return p.test(key);
    });
  };
  return (key) => {
    let known = cache.get(key);
    if (known === undefined) {
      known = decide(key);
      if (cache.size < 10_000) cache.set(key, known);
    }
    return known;
  };
}
