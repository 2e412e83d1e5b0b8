/**
 * `@needlework/shaping`: values shaped for a model. Counting tokens with a real BPE tokenizer,
 * truncating a value to a token budget without dropping the failures in it, and redacting secrets
 * (keys, tokens, card numbers, ...) from any value. It needs only `@needlework/core`, so an MCP
 * server or an adapter of your own can shape its results without the builder; `usingTruncation()`
 * and `usingRedaction()` of `@needlework/workflows` run these same functions on every result.
 *
 * @example
 * ```ts
 * import { countTokens, createRedactor, truncateValue } from "@needlework/shaping";
 * countTokens("Where is ORD-1?");
 * truncateValue(rows, { maxTokens: 500 }).value;
 * createRedactor().redactText("card 4111 1111 1111 1111"); // "card [REDACTED:card]"
 * ```
 * @packageDocumentation
 */
export { countTokens, TOKEN_ENCODINGS, TOKENIZER_NOT_INSTALLED, type TokenEncoding } from "./tokenizer.js";
export { truncateText, truncateValue, type TruncateResult } from "./truncate-value.js";
export { listMarker, objectMarker, stringMarker, TRUNCATION_MARKERS } from "./truncation-markers.js";
export { DEFAULT_TRUNCATION_OPTIONS, MIN_MAX_TOKENS, type TruncationOptions } from "./truncation.options.js";
export { createRedactor, redactionMarker, type Redactor } from "./create-redactor.js";
export { ibanValid, luhnValid } from "./redaction-checks.js";
export { DETECTOR_NAMES, type DetectorName } from "./redaction-detectors.js";
export { DEFAULT_REDACTION_OPTIONS, type RedactionOptions, type RedactionPattern } from "./redaction.options.js";
