// The tool body every framework runs, through the HTTP client its run uses: a real request to the
// CRM on 127.0.0.1 (loopback.ts), each client at its defaults, written as its docs show. axios, got,
// ky, @octokit/request and Stripe throw on an error status (Stripe with its default
// `maxNetworkRetries`, 2; got and ky retry no POST by default); node-fetch with its README's
// `HTTPResponseError` check; `fetch` with MDN's idiom, `if (!response.ok) throw new Error(`Response
// status: ...`)`; an openapi-generator SDK's `ApiException`, as its generated code throws it after
// a fetch (generated code ships in each SDK, not in a package). Nothing is built by hand: every
// error is the one the client raised for what the server did. `fetch-response` (a tool that hands
// back the `Response` when it is not ok, the field report's case) is its own labelled scenario,
// never drawn for the headline.
import { request as octokitRequest } from "@octokit/request";
import axios from "axios";
import got from "got";
import ky from "ky";
import nodeFetch, { type Response as NodeFetchResponse } from "node-fetch";
import Stripe from "stripe";
import { loopbackBase, tokenFor } from "./loopback.js";
import type { ClientKind, FakeCrm, IntendedWrite } from "./world.js";

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

interface Call {
  readonly url: string;
  readonly base: string;
  readonly headers: Record<string, string>;
  readonly write: IntendedWrite;
  readonly key: string;
  readonly token: string;
}

const json = (call: Call): RequestInit => ({
  method: "POST",
  headers: { ...call.headers, "content-type": "application/json" },
  body: JSON.stringify(call.write),
});

async function fetchCall(call: Call, returnResponse: boolean): Promise<unknown> {
  const response = await fetch(call.url, json(call));
  if (!response.ok) {
    if (returnResponse) return response;
    throw new Error(`Response status: ${response.status}`);
  }
  return response.json();
}

async function openapiCall(call: Call): Promise<unknown> {
  const response = await fetch(call.url, json(call));
  if (response.status >= 200 && response.status < 300) return response.json();
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // the generated code keeps a body it cannot parse as text
  }
  throw new ApiException(response.status, "Unknown API Status Code!", body, Object.fromEntries(response.headers));
}

async function nodeFetchCall(call: Call): Promise<unknown> {
  const response = await nodeFetch(call.url, {
    method: "POST",
    headers: { ...call.headers, "content-type": "application/json" },
    body: JSON.stringify(call.write),
  });
  if (!response.ok) throw new HTTPResponseError(response);
  return response.json();
}

function stripeCall(call: Call): Promise<unknown> {
  const { port } = new URL(call.base);
  const stripe = new Stripe(call.token, { host: "127.0.0.1", port: Number(port), protocol: "http" });
  return stripe.customers.update(
    call.write.contactId,
    { email: call.write.email, metadata: { note: call.write.note } },
    { idempotencyKey: call.key },
  );
}

async function octokitCall(call: Call): Promise<unknown> {
  const { data } = await octokitRequest("POST /crm/contacts/{contactId}/sync", {
    baseUrl: call.base,
    headers: call.headers,
    contactId: call.write.contactId,
    email: call.write.email,
    note: call.write.note,
  });
  return data;
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
  const base = await loopbackBase();
  const token = tokenFor(crm);
  const headers = { authorization: `Bearer ${token}`, "idempotency-key": key };
  const call: Call = {
    url: `${base}/crm/contacts/${encodeURIComponent(write.contactId)}/sync`,
    base,
    headers,
    write,
    key,
    token,
  };
  switch (client) {
    case "axios":
      return (await axios.post(call.url, write, { headers })).data;
    case "got":
      return got.post(call.url, { json: write, headers }).json();
    case "ky":
      return ky.post(call.url, { json: write, headers }).json();
    case "node-fetch":
      return nodeFetchCall(call);
    case "fetch":
      return fetchCall(call, false);
    case "fetch-response":
      return fetchCall(call, true);
    case "openapi":
      return openapiCall(call);
    case "octokit":
      return octokitCall(call);
    case "stripe":
      return stripeCall(call);
  }
}
