import { abortReason, NeedleworkError } from "./errors.js";
import type { ChatClient, ChatRequest, ChatResponse, ChatStreamPart, ChatToolCall, ChatUsage } from "./chat-client.js";
import { setTimeout as sleep } from "node:timers/promises";

/**
 * Options of {@link ScriptedChatClient}.
 *
 * @example
 * ```ts
 * const model = new ScriptedChatClient([{ text: "Synced all five contacts." }], { wordDelayMs: 40 });
 * ```
 */
export interface ScriptedChatClientOptions {
  /** Pause before each streamed word, so a person watching sees the text being written. Default 0. */
  readonly wordDelayMs?: number;
  /**
   * Which step a request plays.
   * - `"calls"` (default): the n-th request this client receives plays step n. One client follows one
   *   run; a new client, such as one in another process that resumes a run (`resumeRun`, or
   *   `resume(checkpoint)` elsewhere), starts again at step 1.
   * - `"conversation"`: the step after the assistant turns already in the request's messages, so a run
   *   resumed in another process continues its script where its journal left off, and one client can
   *   serve many runs of the same script.
   */
  readonly stepBy?: "calls" | "conversation";
}

/** The words of a text, each with the whitespace after it (leading whitespace apart): they join back exactly. */
function words(text: string): string[] {
  return text.match(/\s+|\S+\s*/g) ?? [];
}

/**
 * A tool call in a script; `id` is generated (`call_<step>_<n>`) when omitted.
 *
 * @example
 * ```ts
 * const call: ScriptedToolCall = { name: "lookupOrder", arguments: { orderId: "o1" } };
 * ```
 */
export interface ScriptedToolCall {
  readonly id?: string;
  readonly name: string;
  readonly arguments?: string | Record<string, unknown>;
}

/**
 * One assistant turn of a script.
 *
 * @example
 * ```ts
 * const turn: ScriptedTurn = { text: "Looking it up.", toolCalls: [{ name: "lookupOrder", arguments: { orderId: "o1" } }] };
 * ```
 */
export interface ScriptedTurn {
  readonly text?: string;
  readonly toolCalls?: readonly ScriptedToolCall[];
  readonly usage?: ChatUsage;
}

/**
 * A script step: a fixed turn, or a function of the request (and the 1-based step number) that
 * returns one, so a step can react to what the tools said.
 *
 * @example
 * ```ts
 * const step: ScriptedStep = (request) => ({ text: `I saw ${request.messages.length} messages.` });
 * ```
 */
export type ScriptedStep =
  | ScriptedTurn
  | ((request: ChatRequest, step: number) => ScriptedTurn | Promise<ScriptedTurn>);

/**
 * Thrown when the agent asks a {@link ScriptedChatClient} for more turns than the script has.
 *
 * @example
 * ```ts
 * await expect(agent.run("hi")).rejects.toThrow(ScriptExhaustedError);
 * ```
 */
export class ScriptExhaustedError extends NeedleworkError {
  // Named here, not by the bundler (which may emit `_ScriptExhaustedError`): `name` and `isInstance` read it.
  static {
    Object.defineProperty(ScriptExhaustedError, "name", { value: "ScriptExhaustedError" });
  }
  /** The 1-based step that was asked for. */
  readonly step: number;

  constructor(step: number, length: number, lastMessage: string) {
    super(
      "SCRIPT_EXHAUSTED",
      `ScriptedChatClient: the model was asked for step ${step}, but the script has only ${length} step${length === 1 ? "" : "s"}. ` +
        `Add a step, or check why the agent asked again (the last message was: ${lastMessage}).`,
    );
    this.step = step;
  }
}

function describeLast(request: ChatRequest): string {
  const last = request.messages.at(-1);
  if (!last) return "(none)";
  const content =
    last.role === "assistant" ? (last.content ?? `${last.toolCalls?.length ?? 0} tool calls`) : last.content;
  const text = content.length > 120 ? `${content.slice(0, 117)}...` : content;
  return `${last.role}: ${JSON.stringify(text)}`;
}

/**
 * A {@link ChatClient} that plays a script: each `complete()` returns the next step. The default
 * model for demos and tests. `requests` records what the agent asked, for assertions.
 *
 * @example
 * ```ts
 * const model = new ScriptedChatClient([
 *   { toolCalls: [{ name: "getOrderStatus", arguments: { orderId: "ORD-1" } }] },
 *   (request) => ({ text: `Status: ${request.messages.at(-1)?.content}` }),
 * ]);
 * ```
 */
export class ScriptedChatClient implements ChatClient {
  /** Every request so far, with a snapshot of its messages. */
  readonly requests: ChatRequest[] = [];
  private readonly steps: readonly ScriptedStep[];

  private readonly wordDelayMs: number;
  private readonly stepByConversation: boolean;

  constructor(steps: readonly ScriptedStep[], options: ScriptedChatClientOptions = {}) {
    this.steps = [...steps];
    const delay = Object.hasOwn(options, "wordDelayMs") ? (options.wordDelayMs ?? 0) : 0;
    if (!Number.isFinite(delay) || delay < 0) {
      throw new RangeError(`ScriptedChatClient: wordDelayMs must be a number >= 0 (got ${String(delay)}).`);
    }
    this.wordDelayMs = delay;
    const stepBy = Object.hasOwn(options, "stepBy") ? (options.stepBy ?? "calls") : "calls";
    if (stepBy !== "calls" && stepBy !== "conversation") {
      throw new RangeError(
        `ScriptedChatClient: stepBy must be "calls" or "conversation" (got ${JSON.stringify(stepBy)}).`,
      );
    }
    this.stepByConversation = stepBy === "conversation";
  }

  /** How many steps have not been played yet (with `stepBy: "conversation"`: after the last request's step). */
  get remaining(): number {
    if (!this.stepByConversation) return this.steps.length - this.requests.length;
    const last = this.requests.at(-1);
    return this.steps.length - (last ? last.messages.filter((m) => m.role === "assistant").length + 1 : 0);
  }

  async complete(request: ChatRequest): Promise<ChatResponse> {
    if (request.signal?.aborted) throw abortReason(request.signal);
    const snapshot: ChatRequest = { ...request, messages: [...request.messages] };
    this.requests.push(snapshot);
    const number = this.stepByConversation
      ? request.messages.filter((m) => m.role === "assistant").length + 1
      : this.requests.length;
    const step = this.steps[number - 1];
    if (step === undefined) throw new ScriptExhaustedError(number, this.steps.length, describeLast(request));
    const turn = typeof step === "function" ? await step(snapshot, number) : step;
    const toolCalls: ChatToolCall[] | undefined = turn.toolCalls?.map((call, i) => ({
      id: call.id ?? `call_${number}_${i + 1}`,
      name: call.name,
      arguments: call.arguments ?? {},
    }));
    return {
      message: {
        ...(turn.text === undefined ? {} : { content: turn.text }),
        ...(toolCalls === undefined || toolCalls.length === 0 ? {} : { toolCalls }),
      },
      ...(turn.usage === undefined ? {} : { usage: turn.usage }),
      finishReason: toolCalls && toolCalls.length > 0 ? "tool_calls" : "stop",
    };
  }

  /**
   * Plays the next step as a stream: its text word by word (whitespace kept, so the deltas join to
   * the text), then its tool calls, then a `finish` part with its usage. Same script, same turn as
   * {@link ScriptedChatClient.complete}.
   */
  async *stream(request: ChatRequest): AsyncGenerator<ChatStreamPart> {
    const response = await this.complete(request);
    const { content, toolCalls = [] } = response.message;
    if (content !== undefined) {
      // An empty text is still a text: one empty delta keeps `content: ""` as complete() gives it.
      for (const delta of content === "" ? [""] : words(content)) {
        const signal = request.signal ? { signal: request.signal } : {};
        if (this.wordDelayMs > 0) await sleep(this.wordDelayMs, undefined, signal);
        if (request.signal?.aborted) throw abortReason(request.signal);
        yield { type: "text-delta", delta };
      }
    }
    for (const toolCall of toolCalls) yield { type: "tool-call", toolCall };
    const { usage, finishReason } = response;
    yield {
      type: "finish",
      ...(usage === undefined ? {} : { usage }),
      ...(finishReason === undefined ? {} : { finishReason }),
    };
  }
}
