export {
  countTokens,
  createRedactor,
  DEFAULT_REDACTION_OPTIONS,
  DEFAULT_TRUNCATION_OPTIONS,
  DETECTOR_NAMES,
  ibanValid,
  listMarker,
  luhnValid,
  MIN_MAX_TOKENS,
  objectMarker,
  redactionMarker,
  stringMarker,
  TOKEN_ENCODINGS,
  TOKENIZER_NOT_INSTALLED,
  TRUNCATION_MARKERS,
  truncateText,
  truncateValue,
  type DetectorName,
  type RedactionOptions,
  type RedactionPattern,
  type Redactor,
  type TokenEncoding,
  type TruncateResult,
  type TruncationOptions,
} from "@needlework/shaping";
export type { ResolvedRedactionOptions, ResolvedTruncationOptions } from "@needlework/shaping/internal";
export { RESULT_TRUNCATED_FLAG, truncationPlugin, type TruncationPlugin } from "./truncation.plugin.js";
export { REDACTED_FLAG, redactionPlugin, type RedactionPlugin } from "./redaction.plugin.js";
