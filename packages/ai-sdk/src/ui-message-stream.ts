/**
 * `@needlework/ai-sdk/ui-message-stream`: the AI SDK UI-message encoder alone. `toUiMessageStream`
 * turns a run's `AgentEvent`s into the chunks `useChat` reads; it and its types import nothing from
 * `ai`, so this entry loads (and type-checks) without `ai` installed. @needlework/workflows re-exports
 * it as its deprecated `toUiMessageStream`. The main entry exports the same names.
 *
 * @example
 * ```ts
 * import { toUiMessageStream } from "@needlework/ai-sdk/ui-message-stream";
 * const chunks = toUiMessageStream(agent.stream("Where is ORD-1?"));
 * ```
 * @packageDocumentation
 */
export { toUiMessageStream, type UiMessageChunk } from "./ui-message-encoder.js";
export type { UiMessageSourceEvent } from "./ui-message-events.js";
