// The tool body every framework runs, through the HTTP client its run uses. The CRM's answer is
// turned into what that client really does with it: the real packages' error classes (axios, got,
// node-fetch, Stripe) built from the answer, the platform's own (`Response`, `DOMException`,
// undici's "fetch failed"), and an openapi-generator `ApiException` written as the generator emits
// it (generated code ships in each SDK, not in a package). Each client's code is the one its docs
// show: axios/got/Stripe throw on an error status; with node-fetch the README's `HTTPResponseError`
// check; with `fetch` MDN's idiom, `if (!response.ok) throw new Error(`Response status: ...`)`; the
// openapi SDK throws `ApiException`. `fetch-response` (a tool that hands back the `Response` when it
// is not ok, the field report's case) is its own labelled scenario, never drawn for the headline.
import { AxiosError, AxiosHeaders, type InternalAxiosRequestConfig } from "axios";
import { HTTPError, RequestError, TimeoutError as GotTimeoutError } from "got";
import { AbortError, FetchError, Response as NodeFetchResponse } from "node-fetch";
import Stripe from "stripe";
import type { ClientKind, CrmAnswer, FakeCrm, IntendedWrite } from "./world.js";

const URL_ = "https://crm.example/services/data/v62.0/composite/sync";

/** openapi-generator's `typescript` template: `ApiException` with a numeric `code`, body and headers in the message. */
export class ApiException<T> extends Error {
  constructor(
    public readonly code: number,
    message: string,
    public readonly body: T,
    public readonly headers: Record<string, string>,
  ) {
    super(
      `HTTP-Code: ${code}\nMessage: ${message}\nBody: ${JSON.stringify(body)}\nHeaders: ${JSON.stringify(headers)}`,
    );
  }
}

/** node-fetch's README: "a custom error class for HTTP error responses". */
class HTTPResponseError extends Error {
  constructor(public readonly response: NodeFetchResponse) {
    super(`HTTP Error Response: ${response.status} ${response.statusText}`);
  }
}

const systemError = (message: string, code: string): Error => Object.assign(new Error(message), { code });

function axiosCall(answer: CrmAnswer, key: string): unknown {
  const config = { url: URL_, method: "post", headers: new AxiosHeaders({ "Idempotency-Key": key }), timeout: 10_000 };
  const cfg = config as unknown as InternalAxiosRequestConfig;
  if (answer.transport === "reset")
    throw AxiosError.from(systemError("socket hang up", "ECONNRESET"), "ECONNRESET", cfg, {});
  if (answer.transport === "timeout") throw new AxiosError("timeout of 10000ms exceeded", "ECONNABORTED", cfg, {});
  const response = {
    data: answer.body,
    status: answer.status,
    statusText: answer.statusText,
    headers: new AxiosHeaders(answer.headers),
    config: cfg,
    request: {},
  };
  if (answer.status >= 400) {
    const code = answer.status >= 500 ? AxiosError.ERR_BAD_RESPONSE : AxiosError.ERR_BAD_REQUEST;
    throw new AxiosError(`Request failed with status code ${answer.status}`, code, cfg, {}, response);
  }
  return answer.body;
}

function gotCall(answer: CrmAnswer): unknown {
  // got's errors read the request's options; a request-like object stands in for the socket.
  const request = { _onResponse() {}, options: { method: "POST", url: new URL(URL_) } };
  if (answer.transport === "reset")
    throw new RequestError("socket hang up", systemError("socket hang up", "ECONNRESET"), request as never);
  if (answer.transport === "timeout")
    throw new GotTimeoutError(
      Object.assign(new Error("Timeout awaiting 'request' for 10000ms"), {
        event: "request",
        code: "ETIMEDOUT",
      }) as never,
      {} as never,
      request as never,
    );
  if (answer.status >= 400) {
    const response = {
      statusCode: answer.status,
      statusMessage: answer.statusText,
      headers: answer.headers,
      body: JSON.stringify(answer.body),
      request,
      ok: false,
    };
    throw new HTTPError(response as never);
  }
  return answer.body;
}

async function nodeFetchCall(answer: CrmAnswer): Promise<unknown> {
  if (answer.transport === "reset")
    throw new FetchError(
      `request to ${URL_} failed, reason: socket hang up`,
      "system",
      systemError("socket hang up", "ECONNRESET") as never,
    );
  if (answer.transport === "timeout") throw new AbortError("The operation was aborted.");
  const response = new NodeFetchResponse(JSON.stringify(answer.body), {
    status: answer.status,
    statusText: answer.statusText,
    headers: answer.headers,
  });
  if (!response.ok) throw new HTTPResponseError(response);
  return response.json();
}

async function fetchCall(answer: CrmAnswer, returnResponse: boolean): Promise<unknown> {
  if (answer.transport === "reset")
    throw new TypeError("fetch failed", { cause: systemError("other side closed", "UND_ERR_SOCKET") });
  if (answer.transport === "timeout")
    throw new DOMException("The operation was aborted due to timeout", "TimeoutError");
  const response = new Response(JSON.stringify(answer.body), {
    status: answer.status,
    statusText: answer.statusText,
    headers: answer.headers,
  });
  if (response.ok) return response.json();
  if (returnResponse) return response;
  throw new Error(`Response status: ${response.status}`);
}

function openapiCall(answer: CrmAnswer): unknown {
  if (answer.transport === "reset")
    throw new TypeError("fetch failed", { cause: systemError("read ECONNRESET", "ECONNRESET") });
  if (answer.transport === "timeout")
    throw new TypeError("fetch failed", {
      cause: Object.assign(systemError("Headers Timeout Error", "UND_ERR_HEADERS_TIMEOUT"), {
        name: "HeadersTimeoutError",
      }),
    });
  if (answer.status >= 400)
    throw new ApiException(answer.status, "Unknown API Status Code!", answer.body, answer.headers);
  return answer.body;
}

function stripeCall(answer: CrmAnswer): unknown {
  const { errors } = Stripe;
  if (answer.transport === "reset")
    throw new errors.StripeConnectionError({
      message: "An error occurred with our connection to Stripe. Request was retried 0 times.",
    });
  if (answer.transport === "timeout")
    throw new errors.StripeConnectionError({ message: "Request aborted due to timeout being reached (80000ms)" });
  if (answer.status >= 400) {
    const body = answer.body as { message?: string; code?: string };
    throw errors.StripeError.generate({
      message: body.message ?? answer.statusText,
      type: answer.status >= 500 ? "api_error" : "invalid_request_error",
      ...(body.code === undefined ? {} : { code: body.code }),
      statusCode: answer.status,
      headers: answer.headers,
      requestId: "req_audit",
    } as never);
  }
  return answer.body;
}

/**
 * The tool body: one composite sync request through the run's client, with the framework's key as
 * its Idempotency-Key. Returns what the client returns; throws what the client throws.
 *
 * @example
 * ```ts
 * const value = await syncContact(crm, "axios", { contactId, email, note }, ctx.idempotencyKey);
 * ```
 */
export async function syncContact(
  crm: FakeCrm,
  client: ClientKind,
  write: IntendedWrite,
  key: string,
): Promise<unknown> {
  await Promise.resolve(); // a request is never synchronous
  const answer = crm.sync(write, key);
  switch (client) {
    case "axios":
      return axiosCall(answer, key);
    case "got":
      return gotCall(answer);
    case "node-fetch":
      return nodeFetchCall(answer);
    case "fetch":
      return fetchCall(answer, false);
    case "fetch-response":
      return fetchCall(answer, true);
    case "openapi":
      return openapiCall(answer);
    case "stripe":
      return stripeCall(answer);
  }
}
