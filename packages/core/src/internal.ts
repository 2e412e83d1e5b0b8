/**
 * `@needlework/core/internal`: helpers the other needlework packages share with core. Not part of
 * the public API: names here may change in any release. What a sibling package needs as a contract
 * (the ids, the key, the model-turn helpers, the option parsers) is on `@needlework/core/kit`.
 *
 * @example
 * ```ts
 * import { closest } from "@needlework/core/internal";
 * closest("maxAtempts", ["maxAttempts", "baseDelayMs"]); // "maxAttempts"
 * ```
 * @packageDocumentation
 */
export { keyedIdempotent } from "./keyed-idempotent.js";
export { ownAbortAsTimeout } from "./own-abort.js";
export { closest } from "./closest-name.js";
export { checkClassDecoratorContext } from "./decorator-context.js";
export { answerSync, composeMiddleware } from "./middleware.js";
export { parseToolArguments } from "./tool-arguments.js";
export { enclosedRunReadUntrusted, markEnclosingCall } from "./sub-run-mark.js";
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
export { SHORTEST_SECRET } from "./secrets/scrub-secrets.js";
export {
  BUILT_IN_DETECTORS,
  DETECTOR_NAMES,
  type DetectorName,
  type Mark,
  type TextDetector,
} from "./secrets/text-detectors.js";
export { isTransientReturnedFailure, retriableReturnedFailure, toolValueOutcome } from "./tool-value-outcome.js";
export { itemFails } from "./returned-failure.js";
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
