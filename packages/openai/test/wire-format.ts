/** Builders for the OpenAI wire objects the local server sends: stream chunks and Responses API objects. */

const CREATED = 1741569952;
const MODEL = "gpt-test-2025-01-01";

/** One tool-call fragment of a streamed chunk, as OpenAI sends it (id and name only in the first). */
export interface ToolCallFragment {
  readonly index: number;
  readonly id?: string;
  readonly name?: string;
  readonly arguments?: string;
}

/** A `chat.completion.chunk` with one choice's delta, or (with `usage` and no delta) the usage chunk. */
export function chunk(options: {
  readonly content?: string;
  readonly toolCalls?: readonly ToolCallFragment[];
  readonly finishReason?: string;
  readonly usage?: { readonly prompt: number; readonly completion: number };
  readonly role?: boolean;
}): unknown {
  const base = {
    id: "chatcmpl-s1",
    object: "chat.completion.chunk",
    created: CREATED,
    model: MODEL,
    system_fingerprint: "fp_test",
  };
  if (options.usage) {
    const { prompt, completion } = options.usage;
    return {
      ...base,
      choices: [],
      usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
    };
  }
  const toolCalls = options.toolCalls?.map((t) => ({
    index: t.index,
    ...(t.id === undefined ? {} : { id: t.id, type: "function" }),
    function: { ...(t.name === undefined ? {} : { name: t.name }), arguments: t.arguments ?? "" },
  }));
  const delta = {
    ...(options.role ? { role: "assistant" } : {}),
    ...(options.content === undefined ? {} : { content: options.content }),
    ...(toolCalls === undefined ? {} : { tool_calls: toolCalls }),
  };
  return {
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: options.finishReason ?? null }],
    usage: null,
  };
}

/** A Responses API `response` object with text and/or function calls, shaped like the documented examples. */
export function responseObject(options: {
  readonly id: string;
  readonly text?: string;
  readonly calls?: readonly { readonly callId: string; readonly name: string; readonly arguments: string }[];
  readonly usage?: { readonly input: number; readonly output: number };
  readonly status?: "completed" | "incomplete" | "in_progress";
  readonly incompleteReason?: "max_output_tokens" | "content_filter";
}): Record<string, unknown> {
  const output: unknown[] = [];
  if (options.text !== undefined) {
    output.push({
      type: "message",
      id: `msg_${options.id}`,
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text: options.text, annotations: [] }],
    });
  }
  for (const call of options.calls ?? []) {
    output.push({
      type: "function_call",
      id: `fc_${call.callId}`,
      call_id: call.callId,
      name: call.name,
      arguments: call.arguments,
      status: "completed",
    });
  }
  const usage = options.usage;
  return {
    id: options.id,
    object: "response",
    created_at: CREATED,
    status: options.status ?? "completed",
    error: null,
    incomplete_details: options.incompleteReason ? { reason: options.incompleteReason } : null,
    model: MODEL,
    output,
    parallel_tool_calls: true,
    tool_choice: "auto",
    tools: [],
    usage: usage
      ? {
          input_tokens: usage.input,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: usage.output,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: usage.input + usage.output,
        }
      : null,
  };
}

/** The events of a streamed response: created, the text in `deltas`, then `response.completed` with `final`. */
export function responseEvents(final: Record<string, unknown>, deltas: readonly string[]): unknown[] {
  let sequence = 0;
  const event = (type: string, fields: Record<string, unknown>) => ({ type, sequence_number: sequence++, ...fields });
  return [
    event("response.created", { response: { ...final, status: "in_progress", output: [], usage: null } }),
    ...deltas.map((delta) =>
      event("response.output_text.delta", {
        item_id: `msg_${String(final.id)}`,
        output_index: 0,
        content_index: 0,
        delta,
        logprobs: [],
      }),
    ),
    event(final.status === "incomplete" ? "response.incomplete" : "response.completed", { response: final }),
  ];
}
