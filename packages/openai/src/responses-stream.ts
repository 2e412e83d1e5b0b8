import type { ChatTextDelta } from "@needlework/core";
import type { Response, ResponseStreamEvent } from "openai/resources/responses/responses";
import { OpenAIResponseError } from "./openai-response-error.js";

/**
 * Reads a Responses API event stream: yields each output text (or refusal) delta as it arrives and
 * returns the final response of `response.completed` (or `response.incomplete`), which carries the
 * whole output, tool calls included, and the usage; `undefined` when the stream ended before
 * either. A `response.failed` event throws an {@link OpenAIResponseError} (`OPENAI_RESPONSE_FAILED`).
 *
 * @example
 * ```ts
 * const reader = readResponseEvents(sdkStream, baseURL);
 * for (let next = await reader.next(); !next.done; next = await reader.next()) process.stdout.write(next.value.delta);
 * ```
 * @internal
 */
export async function* readResponseEvents(
  events: AsyncIterable<ResponseStreamEvent>,
  baseURL: string,
): AsyncGenerator<ChatTextDelta, Response | undefined> {
  for await (const event of events) {
    switch (event.type) {
      case "response.output_text.delta":
      case "response.refusal.delta":
        if (event.delta !== "") yield { type: "text-delta", delta: event.delta };
        break;
      case "response.completed":
      case "response.incomplete":
        return event.response;
      case "response.failed": {
        const code = event.response.error?.code ?? "unknown";
        throw new OpenAIResponseError(
          "OPENAI_RESPONSE_FAILED",
          `The server at ${baseURL} reported that the response failed (${code}). ` +
            "Check the server's logs; a retry may succeed.",
          baseURL,
        );
      }
      default:
        break;
    }
  }
  return undefined;
}
