import type { OpenAI } from "openai";

/**
 * The OpenAI API an {@link OpenAIChatClient} speaks: `chat-completions` (the default, which every
 * OpenAI-compatible server speaks: vLLM, Ollama, llama.cpp) or `responses` (OpenAI's Responses API).
 *
 * @example
 * ```ts
 * const api: OpenAIApi = "responses";
 * ```
 */
export type OpenAIApi = "chat-completions" | "responses";

/**
 * Options of {@link OpenAIChatClient}. Only `model` is required; the connection comes from
 * `client`, or from `apiKey`/`baseURL`, or from the `OPENAI_API_KEY`/`OPENAI_BASE_URL`
 * environment variables. Defaults: {@link OPENAI_CHAT_CLIENT_DEFAULTS}.
 *
 * @example
 * ```ts
 * const options: OpenAIChatClientOptions = { model: "llama3.1", baseURL: "http://localhost:11434/v1", temperature: 0 };
 * ```
 */
export interface OpenAIChatClientOptions {
  /** The model name the server knows (`gpt-4o-mini`, `llama3.1`, `Qwen/Qwen2.5-7B-Instruct`, ...). */
  readonly model: string;
  /** Default `"chat-completions"`; `"responses"` sends `client.responses.create` requests instead. */
  readonly api?: OpenAIApi;
  /**
   * An `OpenAI` client you configured yourself (proxy, headers, Azure, custom fetch). Do not combine
   * it with `apiKey`, `baseURL` or `timeoutMs`: set those on the client.
   */
  readonly client?: OpenAI;
  /** Default: `OPENAI_API_KEY`. Local servers that need no key may go without one when a base URL is set. */
  readonly apiKey?: string;
  /** Default: `OPENAI_BASE_URL`, else `https://api.openai.com/v1`. */
  readonly baseURL?: string;
  /** Sampling temperature; the server's default when unset. */
  readonly temperature?: number;
  /** Output token limit per model call; the server's default when unset. Sent as {@link maxTokensField}. */
  readonly maxTokens?: number;
  /**
   * The body field `maxTokens` is sent as. Default: `max_completion_tokens` for api.openai.com
   * (its current name, required by reasoning models), `max_tokens` for any other server
   * (the name Ollama, vLLM and llama.cpp have always read).
   */
  readonly maxTokensField?: "max_completion_tokens" | "max_tokens";
  /** Sent as `parallel_tool_calls` when tools are offered; the server's default (OpenAI: true) when unset. */
  readonly parallelToolCalls?: boolean;
  /** OpenAI strict mode for the tool schemas (core's `toOpenAITools`). Default `"auto"`: strict where the schema allows it. */
  readonly strict?: boolean | "auto";
  /**
   * More body fields, merged last (`reasoning_effort`, `seed`, Ollama's `options`, vLLM's
   * `top_k`, ...). `model`, `messages`, `input`, `tools` and `stream` are refused: they belong to the client.
   */
  readonly extraBody?: Readonly<Record<string, unknown>>;
  /**
   * Retries the SDK makes for one model call on 408/409/429/5xx and connection errors, honoring
   * `retry-after`/`retry-after-ms`. The agent loop never retries a model call itself, so this is the
   * one retry layer for model calls. Default 2 (the SDK's own default; 3 attempts in all); with
   * `client`, that client's setting unless given here.
   */
  readonly maxRetries?: number;
  /** Time limit of one HTTP attempt, in milliseconds. Default 600 000 (the SDK's). */
  readonly timeoutMs?: number;
}

/**
 * The defaults of {@link OpenAIChatClientOptions}.
 *
 * @example
 * ```ts
 * OPENAI_CHAT_CLIENT_DEFAULTS.maxRetries; // 2
 * ```
 */
export const OPENAI_CHAT_CLIENT_DEFAULTS = Object.freeze({
  maxRetries: 2,
  timeoutMs: 600_000,
  strict: "auto" as boolean | "auto",
  baseURL: "https://api.openai.com/v1",
  api: "chat-completions" as OpenAIApi,
});

const KNOWN = new Set([
  "model",
  "api",
  "client",
  "apiKey",
  "baseURL",
  "temperature",
  "maxTokens",
  "maxTokensField",
  "parallelToolCalls",
  "strict",
  "extraBody",
  "maxRetries",
  "timeoutMs",
]);
const RESERVED_BODY = ["model", "messages", "input", "tools", "stream"];
const PREFIX = "OpenAIChatClient:";

function check(ok: boolean, message: string): void {
  if (!ok) throw new TypeError(`${PREFIX} ${message}`);
}

/** Checks the options' shapes; connection settings are resolved by the client. @internal */
export function checkOpenAIChatClientOptions(options: OpenAIChatClientOptions): void {
  check(typeof options === "object" && options !== null, 'pass { model, ... } (for example { model: "gpt-4o-mini" }).');
  for (const key of Object.keys(options))
    check(KNOWN.has(key), `unknown option '${key}' (known: ${[...KNOWN].join(", ")}).`);
  check(
    typeof options.model === "string" && options.model.trim() !== "",
    '`model` must be the model name the server knows, e.g. "gpt-4o-mini" or "llama3.1".',
  );
  check(
    options.api === undefined || options.api === "chat-completions" || options.api === "responses",
    '`api` must be "chat-completions" or "responses".',
  );
  if (options.client !== undefined) {
    check(
      typeof options.client?.chat?.completions?.create === "function",
      "`client` must be an OpenAI client (new OpenAI({ ... })).",
    );
    for (const key of ["apiKey", "baseURL", "timeoutMs"] as const)
      check(
        options[key] === undefined,
        `\`${key}\` cannot be combined with \`client\`: configure it on the OpenAI client you pass.`,
      );
  }
  const { temperature, maxTokens, maxTokensField, maxRetries, timeoutMs, strict, parallelToolCalls, extraBody } =
    options;
  check(
    temperature === undefined || (typeof temperature === "number" && Number.isFinite(temperature) && temperature >= 0),
    "`temperature` must be a number >= 0.",
  );
  check(
    maxTokens === undefined || (Number.isInteger(maxTokens) && maxTokens > 0),
    "`maxTokens` must be a positive integer.",
  );
  check(
    maxTokensField === undefined || maxTokensField === "max_completion_tokens" || maxTokensField === "max_tokens",
    '`maxTokensField` must be "max_completion_tokens" or "max_tokens".',
  );
  check(
    maxRetries === undefined || (Number.isInteger(maxRetries) && maxRetries >= 0),
    "`maxRetries` must be an integer >= 0 (0 turns the SDK's retries off).",
  );
  check(
    timeoutMs === undefined || (Number.isInteger(timeoutMs) && timeoutMs > 0),
    "`timeoutMs` must be a positive integer (milliseconds).",
  );
  check(
    strict === undefined || strict === true || strict === false || strict === "auto",
    '`strict` must be true, false or "auto".',
  );
  check(
    parallelToolCalls === undefined || typeof parallelToolCalls === "boolean",
    "`parallelToolCalls` must be a boolean.",
  );
  if (extraBody !== undefined) {
    check(
      typeof extraBody === "object" && extraBody !== null && !Array.isArray(extraBody),
      "`extraBody` must be an object of body fields.",
    );
    for (const key of RESERVED_BODY)
      check(
        !(key in extraBody),
        `\`extraBody\` must not set '${key}': the client sets it from the agent's request and its own options.`,
      );
  }
}
