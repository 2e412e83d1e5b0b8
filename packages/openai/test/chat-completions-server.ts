import { afterEach } from "vitest";
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ChatCompletionCreateParamsNonStreaming } from "openai/resources/chat/completions";

/** One request the server received, body parsed. */
export interface ReceivedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: ChatCompletionCreateParamsNonStreaming & Record<string, unknown>;
  /** Set when the client closed the connection before a reply was written. */
  closedEarly: boolean;
}

/**
 * What the server does with one request: a JSON reply; a raw body (any content type, say a cut-off
 * JSON text or a proxy's HTML page); a server-sent-event stream of JSON chunks, ended by
 * `data: [DONE]` unless `end` says the connection is cut (`"close"`: the response ends without
 * it; `"destroy"`: the socket is torn down) or left open (`"hang"`); or `hang` (never answer).
 */
export type Reply =
  | { readonly status?: number; readonly headers?: Readonly<Record<string, string>>; readonly body: unknown }
  | { readonly status?: number; readonly contentType: string; readonly raw: string }
  | {
      readonly sse: readonly unknown[];
      readonly end?: "done" | "close" | "destroy" | "hang";
      readonly events?: boolean;
    }
  | "hang";

/** A local server speaking the OpenAI chat-completions and Responses wire formats from a script of replies. */
export interface ChatCompletionsServer {
  /** The base URL, `http://127.0.0.1:<port>/v1`. */
  readonly baseURL: string;
  readonly requests: ReceivedRequest[];
  /** Resolves when the `n`th request (1-based) has arrived. */
  whenRequest(n: number): Promise<ReceivedRequest>;
  /** Resolves when the client has closed the connection of the `n`th request without a reply. */
  whenClosedEarly(n: number): Promise<void>;
  close(): Promise<void>;
}

/** More requests than this fail the test run rather than loop: each gets a 400 (not retried by the SDK). */
const MAX_REQUESTS = 20;

/** A `chat.completion` object shaped like the documented example responses. */
export function completion(options: {
  readonly id: string;
  readonly content?: string | null;
  readonly toolCalls?: readonly { readonly id: string; readonly name: string; readonly arguments: string }[];
  readonly finishReason?: string;
  readonly usage?: { readonly prompt: number; readonly completion: number } | null;
}): unknown {
  const toolCalls = options.toolCalls ?? [];
  return {
    id: options.id,
    object: "chat.completion",
    created: 1741569952,
    model: "gpt-test-2025-01-01",
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: options.content ?? null,
          refusal: null,
          ...(toolCalls.length === 0
            ? {}
            : {
                tool_calls: toolCalls.map((c) => ({
                  id: c.id,
                  type: "function",
                  function: { name: c.name, arguments: c.arguments },
                })),
              }),
          annotations: [],
        },
        logprobs: null,
        finish_reason: options.finishReason ?? (toolCalls.length > 0 ? "tool_calls" : "stop"),
      },
    ],
    ...(options.usage === null
      ? {}
      : {
          usage: {
            prompt_tokens: options.usage?.prompt ?? 0,
            completion_tokens: options.usage?.completion ?? 0,
            total_tokens: (options.usage?.prompt ?? 0) + (options.usage?.completion ?? 0),
            prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
            completion_tokens_details: {
              reasoning_tokens: 0,
              audio_tokens: 0,
              accepted_prediction_tokens: 0,
              rejected_prediction_tokens: 0,
            },
          },
        }),
    service_tier: "default",
    system_fingerprint: "fp_test",
  };
}

/** An OpenAI error reply (`{ error: { message, type, param, code } }`). */
export function errorReply(
  status: number,
  type: string,
  message: string,
  code: string | null,
  headers: Record<string, string> = {},
): Reply {
  return { status, headers, body: { error: { message, type, param: null, code } } };
}

function stream(res: ServerResponse, reply: Extract<Reply, { sse: unknown }>): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", "x-request-id": "req_sse" });
  const frames = reply.sse.map((chunk) => {
    // The Responses API names each event (`event: response.output_text.delta`); chat completions do not.
    const type = reply.events === true ? (chunk as { type?: string }).type : undefined;
    return `${type === undefined ? "" : `event: ${type}\n`}data: ${JSON.stringify(chunk)}\n\n`;
  });
  const end = reply.end ?? "done";
  if (end === "done") res.end(`${frames.join("")}data: [DONE]\n\n`);
  else if (end === "close") res.end(frames.join(""));
  // Torn down once the frames are flushed, so the client reads them and then a broken body.
  else if (end === "destroy") res.write(frames.join(""), () => setImmediate(() => res.socket?.destroy()));
  else res.write(frames.join(""));
}

function send(res: ServerResponse, status: number, headers: Readonly<Record<string, string>>, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json", "x-request-id": `req_${status}`, ...headers });
  res.end(JSON.stringify(body));
}

/**
 * Starts the server on 127.0.0.1 (an ephemeral port). The `n`th request to
 * `POST /v1/chat/completions` (or `POST /v1/responses`) gets `replies[n - 1]`; anything else, or a request past the script,
 * gets a 400 naming the problem.
 */
export async function startChatCompletionsServer(replies: readonly Reply[]): Promise<ChatCompletionsServer> {
  const requests: ReceivedRequest[] = [];
  const waiters: { n: number; resolve: (r: ReceivedRequest) => void }[] = [];
  const closeWaiters = new Map<number, () => void>();

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const received: ReceivedRequest = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: (text === "" ? {} : JSON.parse(text)) as ReceivedRequest["body"],
        closedEarly: false,
      };
      requests.push(received);
      const n = requests.length;
      res.on("close", () => {
        if (res.writableFinished) return;
        received.closedEarly = true;
        closeWaiters.get(n)?.();
      });
      for (const w of waiters.filter((w) => w.n === n)) w.resolve(received);
      const reply = replies[n - 1];
      if (req.method !== "POST" || (req.url !== "/v1/chat/completions" && req.url !== "/v1/responses")) {
        send(
          res,
          400,
          {},
          {
            error: {
              message: `Unexpected ${req.method} ${req.url}`,
              type: "invalid_request_error",
              param: null,
              code: null,
            },
          },
        );
      } else if (n > MAX_REQUESTS || reply === undefined) {
        send(
          res,
          400,
          {},
          {
            error: {
              message: `The test script has ${replies.length} replies; request ${n} is one too many.`,
              type: "invalid_request_error",
              param: null,
              code: null,
            },
          },
        );
      } else if (reply === "hang") {
        // Never answered: the client's abort or timeout ends it.
      } else if ("sse" in reply) {
        stream(res, reply);
      } else if ("raw" in reply) {
        res.writeHead(reply.status ?? 200, { "content-type": reply.contentType });
        res.end(reply.raw);
      } else {
        send(res, reply.status ?? 200, reply.headers ?? {}, reply.body);
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    whenRequest(n) {
      const seen = requests[n - 1];
      return seen ? Promise.resolve(seen) : new Promise((resolve) => waiters.push({ n, resolve }));
    },
    whenClosedEarly(n) {
      if (requests[n - 1]?.closedEarly) return Promise.resolve();
      return new Promise((resolve) => closeWaiters.set(n, resolve));
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

/**
 * The per-test server of a test file: `serve(...replies)` starts one and remembers it, and an
 * `afterEach` registered here closes it, so no test leaves a listening socket behind.
 *
 * @example
 * ```ts
 * const serve = useChatCompletionsServer();
 * const s = await serve(completion({ content: "hi" }));
 * ```
 */
export function useChatCompletionsServer(): (...replies: Reply[]) => Promise<ChatCompletionsServer> {
  let server: ChatCompletionsServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  return async (...replies) => {
    server = await startChatCompletionsServer(replies);
    return server;
  };
}
