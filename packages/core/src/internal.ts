/**
 * `@needlework/core/internal`: helpers the other needlework packages share with core. Not part of
 * the public API: names here may change in any release.
 *
 * @example
 * ```ts
 * import { nextId } from "@needlework/core/internal";
 * const runId = nextId("run");
 * ```
 * @packageDocumentation
 */
export { callKey, canonicalJson, parsedArguments } from "./canonical-json.js";
export { callIdempotencyKey } from "./idempotency-key.js";
export { keyedIdempotent } from "./keyed-idempotent.js";
export { ownAbortAsTimeout } from "./own-abort.js";
export { closest } from "./closest-name.js";
export { ownOptions } from "./own-options.js";
export { ownOption, ownProperties } from "./own-properties.js";
export { parseOptions, type SchemaMatches } from "./parse-options.js";
export { functionOption, integerAtLeast, type OrderedOption, requireOrder, stringOrRegExp } from "./option-schemas.js";
export { checkClassDecoratorContext } from "./decorator-context.js";
export { answerSync, composeMiddleware } from "./middleware.js";
export { nextId } from "./tool-invoker.js";
export { parseToolArguments } from "./tool-arguments.js";
export { APPROVED_BY_PERSON, APPROVED_ITEM } from "./tool-provenance.js";
export {
  CALL_PROBE,
  type CallProbe,
  hasCallProbe,
  type ProbedCall,
  type ProbeVerdict,
  probeCall,
  registerCallProbes,
} from "./call-probe.js";
export { IBAN_LENGTHS, ibanValid, luhnValid } from "./secrets/secret-checks.js";
export { SHORTEST_SECRET, scrubSecrets, scrubSecretsDeep } from "./secrets/scrub-secrets.js";
export {
  BUILT_IN_DETECTORS,
  DETECTOR_NAMES,
  type DetectorName,
  type Mark,
  type TextDetector,
} from "./secrets/text-detectors.js";
export { isTransientReturnedFailure, retriableReturnedFailure, toolValueOutcome } from "./tool-value-outcome.js";
export { itemFails } from "./returned-failure.js";
export { askModel, ChatResponseAssembler, collectChatStream } from "./collect-chat-stream.js";
export { raceAbort } from "./race-abort.js";
export { describeOrigin } from "./define-tool.js";
export { compileJsonSchema, type JsonSchemaCheck, type JsonSchemaIssue } from "./json-schema-check.js";
export { mapSqlState } from "./sqlstate.js";
export { IDEMPOTENCY_HINT } from "./mapped-error.js";
export {
  BINARY_ARTIFACTS_ITEM,
  type BinaryArtifactSink,
  binaryBaseType,
  binaryMediaType,
} from "./binary-artifacts.js";
