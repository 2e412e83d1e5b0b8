// The OpenAI SDK client as the chat client uses it: made from the options, its endpoint, and
// the signal plumbing the SDK needs. Split from openai-chat-client.ts.
import { abortReason, type ChatEndpoint, NeedleworkError } from "@needlework/core";
import { OpenAI } from "openai";
import { OPENAI_CHAT_CLIENT_DEFAULTS, type OpenAIChatClientOptions } from "./openai-chat-client.options.js";

// Local servers (Ollama, vLLM, llama.cpp) ignore the key, but the SDK refuses to start without one.
const NO_KEY = "no-key";

/** `value` unless it is missing or blank. @internal */
export function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value;
}

/** True for OpenAI's own API host (which takes `max_completion_tokens`). @internal */
export function isOpenAIHost(baseURL: string): boolean {
  try {
    return new URL(baseURL).hostname === "api.openai.com";
  } catch {
    return false;
  }
}

/** The SDK client for `options` (a local server gets a placeholder key). @internal */
export function createSdkClient(options: OpenAIChatClientOptions): OpenAI {
  const apiKey = nonEmpty(options.apiKey) ?? nonEmpty(process.env.OPENAI_API_KEY);
  const baseURL = nonEmpty(options.baseURL) ?? nonEmpty(process.env.OPENAI_BASE_URL);
  if (apiKey === undefined && baseURL === undefined) {
    throw new NeedleworkError(
      "OPENAI_NOT_CONFIGURED",
      "OpenAIChatClient: no API key and no base URL. For OpenAI set OPENAI_API_KEY (or pass { apiKey }); " +
        "for a local OpenAI-compatible server set OPENAI_BASE_URL (or pass { baseURL }), e.g. http://localhost:11434/v1 for Ollama or http://localhost:8000/v1 for vLLM.",
    );
  }
  return new OpenAI({
    apiKey: apiKey ?? NO_KEY,
    baseURL: baseURL ?? OPENAI_CHAT_CLIENT_DEFAULTS.baseURL,
    maxRetries: options.maxRetries ?? OPENAI_CHAT_CLIENT_DEFAULTS.maxRetries,
    timeout: options.timeoutMs ?? OPENAI_CHAT_CLIENT_DEFAULTS.timeoutMs,
  });
}

/** The host and port of `baseURL`, for spans. @internal */
export function endpointOf(baseURL: string): ChatEndpoint | undefined {
  try {
    const url = new URL(baseURL);
    const port =
      url.port === ""
        ? url.protocol === "https:"
          ? 443
          : url.protocol === "http:"
            ? 80
            : undefined
        : Number(url.port);
    return { address: url.hostname, ...(port === undefined ? {} : { port }) };
  } catch {
    return undefined;
  }
}

/**
 * A signal of the request's own, aborted with the caller's: the SDK never removes the listener it
 * adds to the signal it is given, so the caller's (often a whole run's) keeps none once `release`d.
 */
export function linkSignal(signal: AbortSignal | undefined): { controller: AbortController; release: () => void } {
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(signal?.reason);
  signal?.addEventListener("abort", onAbort, { once: true });
  return { controller, release: () => signal?.removeEventListener("abort", onAbort) };
}

/**
 * Settles with `pending`, or rejects as soon as `signal` aborts: the SDK sleeps out a
 * `retry-after` without watching its signal, and an abort must not wait for that.
 */
export function untilAborted<T>(pending: PromiseLike<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    signal.addEventListener("abort", () => reject(abortReason(signal)), { once: true });
    pending.then(resolve, reject);
  });
}
