import { DETECTOR_NAMES, type DetectorName } from "./redaction-detectors.js";

/**
 * A custom detector: every match of `pattern` is replaced by `replacement` (a string, or a function
 * of the match), by default `[REDACTED:<name>]`. Write linear-time patterns: bounded quantifiers, no
 * quantified group that holds another quantifier.
 *
 * @example
 * ```ts
 * const employeeId: RedactionPattern = { name: "employee_id", pattern: /\bEMP-[0-9]{6}\b/g };
 * ```
 */
export interface RedactionPattern {
  readonly name: string;
  readonly pattern: RegExp;
  readonly replacement?: string | ((match: string) => string);
}

/**
 * Options of {@link createRedactor} and `usingRedaction()`.
 *
 * @example
 * ```ts
 * usingAgentFramework(container).addAgentFunctions(CrmTools)
 *   .usingResilience().usingToolResultMiddleware().usingTruncation()
 *   .usingRedaction({ fieldNames: ["dob"], allow: ["support@example.com"], patterns: [employeeId] });
 * ```
 */
export interface RedactionOptions {
  /** The built-in detectors to run. Default: all of them (see {@link DETECTOR_NAMES}). */
  readonly detectors?: readonly DetectorName[];
  /** Extra patterns, run before the built-in detectors. */
  readonly patterns?: readonly RedactionPattern[];
  /** Extra secret field names (whole value replaced), added to password, secret, token, apiKey, ... */
  readonly fieldNames?: readonly (string | RegExp)[];
  /** Whether field-name rules apply at all. Default `true`. */
  readonly redactFieldNames?: boolean;
  /** Found values that are kept: an exact string, or a RegExp tested on the found value. */
  readonly allow?: readonly (string | RegExp)[];
}

/**
 * The options of `usingRedaction()` once defaults are applied.
 *
 * @example
 * ```ts
 * redactionPlugin().options.detectors; // every built-in detector
 * ```
 */
export interface ResolvedRedactionOptions {
  readonly detectors: readonly DetectorName[];
  readonly patterns: readonly RedactionPattern[];
  readonly fieldNames: readonly (string | RegExp)[];
  readonly redactFieldNames: boolean;
  readonly allow: readonly (string | RegExp)[];
}

/**
 * The defaults of {@link RedactionOptions}.
 *
 * @example
 * ```ts
 * DEFAULT_REDACTION_OPTIONS.detectors; // ["private_key", "jwt", "bearer_token", "api_key", ...]
 * ```
 */
export const DEFAULT_REDACTION_OPTIONS: ResolvedRedactionOptions = Object.freeze({
  detectors: DETECTOR_NAMES,
  patterns: Object.freeze([]) as readonly RedactionPattern[],
  fieldNames: Object.freeze([]) as readonly (string | RegExp)[],
  redactFieldNames: true,
  allow: Object.freeze([]) as readonly (string | RegExp)[],
});

const KNOWN = new Set(["detectors", "patterns", "fieldNames", "redactFieldNames", "allow"]);

const stringsOrPatterns = (value: unknown): boolean =>
  Array.isArray(value) && value.every((v) => typeof v === "string" || v instanceof RegExp);

/**
 * Validates options and applies the defaults; throws a `TypeError` naming the bad option.
 * @internal
 */
export function resolveRedactionOptions(options: RedactionOptions = {}): ResolvedRedactionOptions {
  for (const key of Object.keys(options)) {
    if (!KNOWN.has(key))
      throw new TypeError(`usingRedaction: unknown option '${key}' (known: ${[...KNOWN].join(", ")}).`);
  }
  const resolved: ResolvedRedactionOptions = {
    detectors: options.detectors ?? DEFAULT_REDACTION_OPTIONS.detectors,
    patterns: options.patterns ?? DEFAULT_REDACTION_OPTIONS.patterns,
    fieldNames: options.fieldNames ?? DEFAULT_REDACTION_OPTIONS.fieldNames,
    redactFieldNames: options.redactFieldNames ?? DEFAULT_REDACTION_OPTIONS.redactFieldNames,
    allow: options.allow ?? DEFAULT_REDACTION_OPTIONS.allow,
  };
  if (!Array.isArray(resolved.detectors))
    throw new TypeError(`usingRedaction: detectors must be an array of ${DETECTOR_NAMES.join(", ")}.`);
  for (const name of resolved.detectors) {
    if (!DETECTOR_NAMES.includes(name))
      throw new TypeError(
        `usingRedaction: unknown detector ${JSON.stringify(name)} (known: ${DETECTOR_NAMES.join(", ")}).`,
      );
  }
  if (!Array.isArray(resolved.patterns))
    throw new TypeError("usingRedaction: patterns must be an array of { name, pattern: RegExp, replacement? }.");
  for (const p of resolved.patterns) {
    if (typeof p?.name !== "string" || p.name === "" || !(p.pattern instanceof RegExp)) {
      throw new TypeError(
        "usingRedaction: each pattern needs a non-empty name and a RegExp pattern, like { name: 'employee_id', pattern: /EMP-[0-9]{6}/g }.",
      );
    }
    if (p.replacement !== undefined && typeof p.replacement !== "string" && typeof p.replacement !== "function") {
      throw new TypeError(`usingRedaction: the replacement of pattern '${p.name}' must be a string or a function.`);
    }
  }
  if (!stringsOrPatterns(resolved.fieldNames))
    throw new TypeError("usingRedaction: fieldNames must be an array of strings and regular expressions.");
  if (!stringsOrPatterns(resolved.allow))
    throw new TypeError("usingRedaction: allow must be an array of strings and regular expressions.");
  if (typeof resolved.redactFieldNames !== "boolean")
    throw new TypeError("usingRedaction: redactFieldNames must be a boolean.");
  return resolved;
}
