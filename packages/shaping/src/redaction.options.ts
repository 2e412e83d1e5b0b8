import { z } from "zod";
import { functionOption, stringOrRegExp } from "@needlework/core/kit";
import { parseOptions, type SchemaMatches } from "@needlework/core/kit";
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

const STRINGS_OR_PATTERNS = "must be an array of strings and regular expressions";
const STRING_OR_FUNCTION = "must be a string or a function";

const redactionPatternSchema = z.strictObject(
  {
    name: z.string("must be a non-empty string").min(1, "must be a non-empty string"),
    pattern: z.instanceof(RegExp, { error: "must be a RegExp, like /EMP-[0-9]{6}/g" }),
    replacement: z
      .union([z.string(), functionOption<(match: string) => string>(STRING_OR_FUNCTION)], STRING_OR_FUNCTION)
      .optional(),
  },
  "must be { name, pattern: RegExp, replacement? }",
);

const redactionOptionsSchema = z.strictObject(
  {
    detectors: z
      .array(
        z.enum(DETECTOR_NAMES, `must be one of ${DETECTOR_NAMES.join(", ")}`),
        "must be an array of detector names",
      )
      .readonly()
      .optional(),
    patterns: z
      .array(redactionPatternSchema, "must be an array of { name, pattern, replacement? }")
      .readonly()
      .optional(),
    fieldNames: z.array(stringOrRegExp, STRINGS_OR_PATTERNS).readonly().optional(),
    redactFieldNames: z.boolean("must be true or false").optional(),
    allow: z.array(stringOrRegExp, STRINGS_OR_PATTERNS).readonly().optional(),
  },
  "must be an object",
);

true satisfies SchemaMatches<typeof redactionOptionsSchema, RedactionOptions>;
true satisfies SchemaMatches<typeof redactionPatternSchema, RedactionPattern>;

/**
 * Validates options and applies the defaults; throws an `InvalidOptionError` naming the bad option.
 * `usingRedaction()` and `createRedactor()` call it once, when they are called.
 * @internal
 */
export function resolveRedactionOptions(options: RedactionOptions = {}): ResolvedRedactionOptions {
  const o = parseOptions("usingRedaction", redactionOptionsSchema, options);
  const d = DEFAULT_REDACTION_OPTIONS;
  return {
    detectors: o.detectors ?? d.detectors,
    // Without `replacement: undefined` keys, which RedactionPattern (exact optional types) does not allow.
    patterns:
      o.patterns?.map(({ name, pattern, replacement }) =>
        replacement === undefined ? { name, pattern } : { name, pattern, replacement },
      ) ?? d.patterns,
    fieldNames: o.fieldNames ?? d.fieldNames,
    redactFieldNames: o.redactFieldNames ?? d.redactFieldNames,
    allow: o.allow ?? d.allow,
  };
}
