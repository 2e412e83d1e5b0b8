// The AI SDK UI-message encoder is @needlework/ai-sdk's: these deprecated names are that encoder and its
// chunk type, reached through the adapter's `ui-message-stream` entry, which imports nothing from `ai`.
import {
  type UiMessageChunk as AiSdkUiMessageChunk,
  toUiMessageStream as aiSdkToUiMessageStream,
} from "@needlework/ai-sdk/ui-message-stream";

/**
 * One chunk of the Vercel AI SDK's UI message stream protocol (v1), as `useChat` and
 * `readUIMessageStream` read it: `@needlework/ai-sdk`'s `UiMessageChunk`, under its old name here.
 *
 * @deprecated The AI SDK encoder lives in `@needlework/ai-sdk`: `import type { UiMessageChunk } from
 * "@needlework/ai-sdk"` (this is the same type). This alias goes in the next major version.
 *
 * @example
 * ```ts
 * const chunk: UiMessageChunk = { type: "text-delta", id: "text-1", delta: "Order ORD-1 " };
 * ```
 */
export type UiMessageChunk = AiSdkUiMessageChunk;

/**
 * Encodes a run as the AI SDK's UI message stream, so an existing `useChat` front end can drive a
 * needlework agent. It is `@needlework/ai-sdk`'s `toUiMessageStream` (the same function), kept under
 * this entry for code written before the encoder moved.
 *
 * @deprecated Vendor protocol code lives in the adapter packages: `import { toUiMessageStream } from
 * "@needlework/ai-sdk"` (this is the same function). This name goes in the next major version.
 *
 * @example
 * ```ts
 * // Deprecated: import { toUiMessageStream } from "@needlework/ai-sdk" instead.
 * import { createUIMessageStreamResponse } from "ai";
 *
 * export function POST(): Response {
 *   return createUIMessageStreamResponse({ stream: toUiMessageStream(agent.stream("Where is ORD-1?")) });
 * }
 * ```
 */
export const toUiMessageStream: typeof aiSdkToUiMessageStream = aiSdkToUiMessageStream;
