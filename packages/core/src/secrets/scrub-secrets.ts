import { remember } from "../remember.js";
import { BUILT_IN_DETECTORS } from "./text-detectors.js";

/** No built-in detector matches fewer characters ("a@b.co"): shorter text needs no scan. @internal */
export const SHORTEST_SECRET = 6;
const steps = BUILT_IN_DETECTORS.map((d) => {
  const marker = `[REDACTED:${d.label}]`;
  return { apply: d.apply, mark: () => marker };
});

/**
 * `text` with every secret the default detectors find (API keys, tokens, `password=` values,
 * private keys, emails, card numbers, IBANs, SSNs, phone numbers) replaced by a marker such as
 * `[REDACTED:api_key]`. Failure messages, suggestions and diagnostics log lines pass through it
 * whether or not `usingRedaction()` is on; text with nothing to scrub is returned as it is.
 *
 * @example
 * ```ts
 * scrubSecrets("login failed: password=hunter2"); // "login failed: password=[REDACTED:secret]"
 * ```
 */
export function scrubSecrets(text: string): string {
  if (text.length < SHORTEST_SECRET || knownClean.has(text)) return text;
  let out = text;
  for (const step of steps) out = step.apply(out, step.mark);
  if (out === text && text.length <= KNOWN_CLEAN_MAX_LENGTH) remember(knownClean, text);
  return out;
}

// Failure messages and suggestions repeat (one per error type and tool), and every failing call
// scrubs them, so short texts found clean are remembered in a bounded set. A text with a secret in
// it is never kept.
const knownClean = new Set<string>();
const KNOWN_CLEAN_MAX_LENGTH = 512;

const MAX_DEPTH = 16;

/**
 * A copy of a plain value (objects, arrays, strings) with {@link scrubSecrets} applied to every
 * string; other values and class instances are kept. Parts with nothing to scrub are shared.
 *
 * @example
 * ```ts
 * scrubSecretsDeep({ error: { message: "token ghp_..." } });
 * ```
 */
export function scrubSecretsDeep(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return scrubSecrets(value);
  if (value === null || typeof value !== "object" || depth >= MAX_DEPTH) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item, i) => {
      const scrubbed = scrubSecretsDeep(item, depth + 1);
      if (scrubbed !== item) (copy ??= [...value])[i] = scrubbed;
    });
    return copy ?? value;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return value;
  let copy: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(value)) {
    const scrubbed = scrubSecretsDeep(item, depth + 1);
    if (scrubbed !== item) (copy ??= { ...value })[key] = scrubbed;
  }
  return copy ?? value;
}
