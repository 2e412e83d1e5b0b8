/**
 * `@needlework/core/kit`: the small, documented surface that packages building on core (needlework's
 * own adapters, stores and engines, and yours) share with it. What names a call and its key (`nextId`,
 * `callIdempotencyKey`, `callKey`, `canonicalJson`, `parsedArguments`), how a model turn is asked and
 * assembled (`askModel`, `collectChatStream`, `ChatResponseAssembler`), how an options object is read
 * (`parseOptions`, `ownOptions`, `ownOption`, `ownProperties` and the option schemas), and the mark a
 * person's approval of one call carries (`APPROVED_ITEM`, `APPROVED_BY_PERSON`), and the scrubbing every
 * text passes through before it leaves for a log, a span or a sink (`scrubSecrets`, `scrubSecretsDeep`:
 * what a telemetry subscriber or exporter of yours applies too). Unlike
 * `@needlework/core/internal`, these names are a contract: a change is a breaking change.
 *
 * @example
 * ```ts
 * import { callIdempotencyKey, nextId } from "@needlework/core/kit";
 * const runId = nextId("run");
 * const key = callIdempotencyKey(runId, "call_1"); // what the tool sees as ctx.idempotencyKey
 * ```
 * @packageDocumentation
 */
export { callKey, canonicalJson, parsedArguments } from "./canonical-json.js";
export { callIdempotencyKey } from "./idempotency-key.js";
export { nextId } from "./tool-invoker.js";
export { askModel, ChatResponseAssembler, collectChatStream } from "./collect-chat-stream.js";
export { ownOptions } from "./own-options.js";
export { ownOption, ownProperties } from "./own-properties.js";
export { parseOptions, type SchemaMatches } from "./parse-options.js";
export { functionOption, integerAtLeast, type OrderedOption, requireOrder, stringOrRegExp } from "./option-schemas.js";
export { APPROVED_BY_PERSON, APPROVED_ITEM } from "./tool-provenance.js";
export { scrubSecrets, scrubSecretsDeep } from "./secrets/scrub-secrets.js";
