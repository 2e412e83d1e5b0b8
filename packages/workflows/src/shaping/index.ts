export { countTokens, TOKEN_ENCODINGS, TOKENIZER_NOT_INSTALLED, type TokenEncoding } from "./tokenizer.js";
export { truncateText, truncateValue, type TruncateResult } from "./truncate-value.js";
export { listMarker, objectMarker, stringMarker, TRUNCATION_MARKERS } from "./truncation-markers.js";
export {
  DEFAULT_TRUNCATION_OPTIONS,
  MIN_MAX_TOKENS,
  type ResolvedTruncationOptions,
  type TruncationOptions,
} from "./truncation.options.js";
export { RESULT_TRUNCATED_FLAG, truncationPlugin, type TruncationPlugin } from "./truncation.plugin.js";
export { createRedactor, redactionMarker, type Redactor } from "./create-redactor.js";
export { ibanValid, luhnValid } from "./redaction-checks.js";
export { DETECTOR_NAMES, type DetectorName } from "./redaction-detectors.js";
export {
  DEFAULT_REDACTION_OPTIONS,
  type RedactionOptions,
  type RedactionPattern,
  type ResolvedRedactionOptions,
} from "./redaction.options.js";
export { REDACTED_FLAG, redactionPlugin, type RedactionPlugin } from "./redaction.plugin.js";
