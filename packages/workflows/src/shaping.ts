/**
 * `@needlework/workflows/shaping`: the pieces behind `usingTruncation()`, `usingRedaction()` and
 * `usingArtifacts()` (its plugin, the `read_artifact` tool's name, its flags and `storeAsArtifact`),
 * usable on their own: token counting and value truncation, the markers they leave, a redactor for
 * any value, the built-in detectors' names and the checksums they use. They are re-exported from
 * `@needlework/shaping`, which has them without the builder, and the plugins' two flags.
 *
 * @example
 * ```ts
 * import { countTokens, createRedactor } from "@needlework/workflows/shaping";
 * countTokens("Where is ORD-1?");
 * createRedactor().redactText("card 4111 1111 1111 1111");
 * ```
 * @packageDocumentation
 */
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
  REDACTED_FLAG,
  redactionMarker,
  RESULT_TRUNCATED_FLAG,
  stringMarker,
  TOKEN_ENCODINGS,
  TOKENIZER_NOT_INSTALLED,
  TRUNCATION_MARKERS,
  truncateText,
  truncateValue,
  type DetectorName,
  type RedactionPattern,
  type Redactor,
  type TokenEncoding,
  type TruncateResult,
} from "./shaping/index.js";
export {
  ARTIFACT_NOT_STORED_FLAG,
  artifactsPlugin,
  type ArtifactsOptions,
  type ArtifactsPlugin,
  DEFAULT_OFFLOAD_BYTES,
  READ_ARTIFACT_TOOL,
  storeAsArtifact,
  type StoreAsArtifactOptions,
} from "./artifacts/index.js";
export { ARTIFACT_PAGE_FLAG, ARTIFACT_STORED_FLAG } from "@needlework/durable";
