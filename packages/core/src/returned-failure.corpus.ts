/*
 * The corpus of returned values the default failure detector is held to (exported by no package
 * entry; docs/declaring-tools.md "Returned failures" shows the same lists). `legitimate` values are
 * data and must stay `ok`; `failing` values must be caught with the given code; `partial` values
 * are lists some of whose items failed. Each entry says what real tool or API it stands for; the
 * payloads of real APIs (GitHub, Stripe, Shopify, JSend, Elasticsearch, ESLint, uptime monitors,
 * auth audit logs) are in returned-failure.corpus-apis.ts, each with its `source`, and are part of
 * the lists exported here.
 */
import { apiFailing, apiLegitimate, apiPartial } from "./returned-failure.corpus-apis.js";

import type { FailingCase, LegitimateCase, PartialCase } from "./returned-failure.corpus-types.js";

export type { FailingCase, LegitimateCase, PartialCase } from "./returned-failure.corpus-types.js";

const logLines = [
  "2026-11-26T10:00:01Z INFO started",
  "2026-11-26T10:00:02Z ERROR connection refused, retrying",
  "2026-11-26T10:00:03Z INFO error budget ok",
];

const ownLegitimate: readonly LegitimateCase[] = [
  { name: "error: null", value: { id: "c1", error: null } },
  { name: "errors: []", value: { id: "c1", errors: [] } },
  { name: "ok: true with an empty error", value: { ok: true, error: "" } },
  { name: "success: true with no errors", value: { success: true, errors: [] } },
  { name: "a business status 'failed'", value: { orderId: "o-1", status: "failed", reason: "card declined" } },
  { name: "a payment whose status is 'error'", value: { paymentId: "p-9", status: "error" } },
  {
    name: "a job list with failed jobs",
    value: {
      jobs: [
        { id: "j1", status: "failed" },
        { id: "j2", status: "done" },
      ],
    },
  },
  { name: "log lines containing the word error", value: logLines },
  { name: "log lines under a field", value: { lines: logLines, level: "error" } },
  { name: "an error count of zero", value: { errorCount: 0, warnings: 2 } },
  { name: "errors as a number", value: { errors: 0, processed: 120 } },
  { name: "an error rate", value: { error_rate: 0.031, p99_ms: 420 } },
  { name: "error: false", value: { error: false, value: 42 } },
  { name: "an error object with nothing in it", value: { error: { code: null, message: "" } } },
  { name: "errors holding only nulls", value: { errors: [null, null] } },
  { name: "ok as a string", value: { ok: "false-positive-rate", metric: "fpr" } },
  { name: "success as a number", value: { success: 0, attempts: 0 } },
  { name: "a bare HTTP status in a record", value: { id: "check-1", status: 200 } },
  {
    name: "an access log of requests with 4xx/5xx statuses",
    value: {
      items: [
        { path: "/login", method: "POST", status: 401, count: 12 },
        { path: "/api/orders", method: "GET", status: 500, count: 3 },
      ],
    },
  },
  {
    name: "HTTP status reference rows",
    value: [
      { code: 404, name: "Not Found" },
      { code: 503, name: "Unavailable" },
    ],
  },
  { name: "a status number with no response shape", value: { status: 503 } },
  { name: "a fetch Response with ok: true", value: new Response("{}", { status: 200 }) },
  { name: "a 201 Response", value: new Response(null, { status: 201 }) },
  { name: "a 204 Response", value: new Response(null, { status: 204 }) },
  { name: "a string mentioning failure", value: "Deployment failed last night; today it succeeded." },
  { name: "a number", value: 0 },
  { name: "null", value: null },
  { name: "an empty array", value: [] },
  { name: "an empty object", value: {} },
  {
    name: "a batch where every item succeeded",
    value: {
      results: [
        { id: "a", status: 201 },
        { id: "b", status: 200 },
      ],
    },
  },
  {
    name: "items whose error is null",
    value: {
      items: [
        { id: 1, error: null },
        { id: 2, error: null },
      ],
    },
  },
  { name: "GraphQL data with no errors", value: { data: { contact: { id: "c1" } } } },
  { name: "Slack ok: true", value: { ok: true, channel: "C1", ts: "1700000000.000100" } },
  { name: "a search result about errors", value: { results: [{ title: "How to fix error 500", url: "https://x" }] } },
  {
    name: "Elasticsearch bulk without errors",
    value: { took: 3, errors: false, items: [{ index: { _id: "1", status: 201 } }] },
  },
  { name: "a nested error deep in data (not scanned)", value: { report: { sections: [{ error: "disk full" }] } } },
  { name: "a list of strings", value: ["error", "failed", "ok: false"] },
  { name: "a Date", value: new Date(0) },
  { name: "a Map", value: new Map([["error", "x"]]) },
  { name: "a record with ok true and a zero-length errors", value: { ok: true, errors: [], result: { id: 3 } } },
  { name: "a validation report that passed", value: { valid: true, errors: [], warnings: ["deprecated field"] } },
];

const retryAfter = new Headers({ "retry-after": "30" });

const ownFailing: readonly FailingCase[] = [
  { name: "ok: false", value: { ok: false }, code: "TOOL_ERROR", retriable: false },
  {
    name: "success: false, whose message says it is temporary (locked)",
    value: { success: false, message: "Contact is locked" },
    code: "TOOL_ERROR",
    retriable: true,
  },
  { name: "a code that says busy", value: { ok: false, error: "service_busy" }, code: "SERVICE_BUSY", retriable: true },
  {
    name: "an errors list whose item says try again",
    value: { success: false, errors: [{ code: "LOCK_TIMEOUT", message: "Record locked by another sync, try again." }] },
    code: "TOOL_ERROR",
    retriable: true,
  },
  {
    name: "an errors list whose item says invalid",
    value: { success: false, errors: [{ code: "INVALID_EMAIL", message: "The email address is not valid." }] },
    code: "TOOL_ERROR",
    retriable: false,
  },
  {
    name: "a message that says unavailable but also rejected is lasting",
    value: { ok: false, message: "Rejected: the service is unavailable for this plan." },
    code: "TOOL_ERROR",
    retriable: false,
  },
  { name: "a non-empty error string", value: { error: "quota exceeded" }, code: "TOOL_ERROR", retriable: false },
  {
    name: "Slack-style ok: false with an error code",
    value: { ok: false, error: "channel_not_found" },
    code: "CHANNEL_NOT_FOUND",
    retriable: false,
  },
  {
    name: "an error object with a code that says locked (temporary)",
    value: { error: { code: "CONTACT_LOCKED", message: "Contact is locked." } },
    code: "CONTACT_LOCKED",
    retriable: true,
  },
  { name: "error: true", value: { error: true, message: "lookup failed" }, code: "TOOL_ERROR", retriable: false },
  {
    name: "a non-empty errors array (GraphQL)",
    value: { data: null, errors: [{ message: "Not authorized" }] },
    code: "TOOL_ERROR",
    retriable: false,
  },
  { name: "ok: false, retriable: true", value: { ok: false, retriable: true }, code: "TOOL_ERROR", retriable: true },
  {
    name: "ok: false with a 429 status",
    value: { ok: false, status: 429, retryAfter: 5 },
    code: "RATE_LIMITED",
    retriable: true,
  },
  {
    name: "a Lambda-style 503 response",
    value: { statusCode: 503, body: "Service Unavailable" },
    code: "UPSTREAM_UNAVAILABLE",
    retriable: true,
  },
  {
    name: "an axios-style 403 response",
    value: { status: 403, statusText: "Forbidden", data: {} },
    code: "FORBIDDEN",
    retriable: false,
  },
  { name: "a fetch Response 403", value: new Response(null, { status: 403 }), code: "FORBIDDEN", retriable: false },
  {
    name: "a fetch Response 429 with Retry-After",
    value: new Response(null, { status: 429, headers: retryAfter }),
    code: "RATE_LIMITED",
    retriable: true,
  },
  {
    name: "a fetch Response 503",
    value: new Response(null, { status: 503 }),
    code: "UPSTREAM_UNAVAILABLE",
    retriable: true,
  },
  { name: "a fetch Response 500", value: new Response(null, { status: 500 }), code: "UPSTREAM_ERROR", retriable: true },
  { name: "a fetch Response 404", value: new Response(null, { status: 404 }), code: "NOT_FOUND", retriable: false },
  { name: "a returned Error", value: new TypeError("x is undefined"), code: "UNHANDLED_ERROR", retriable: false },
  {
    name: "Elasticsearch bulk errors: true with no readable item",
    value: { took: 3, errors: true, items: [] },
    code: "TOOL_ERROR",
    retriable: false,
  },
  {
    name: "an error buried at the end of a large result",
    value: {
      rows: Array.from({ length: 200 }, (_, i) => ({ id: i, note: "x".repeat(80) })),
      error: "export aborted: quota exceeded",
    },
    code: "TOOL_ERROR",
    retriable: false,
  },
  {
    name: "every item of a batch failed",
    value: {
      results: [
        { id: "a", status: 403 },
        { id: "b", status: 403 },
      ],
    },
    code: "FORBIDDEN",
    retriable: false,
  },
];

const ownPartial: readonly PartialCase[] = [
  {
    name: "a top-level list with ok: false items",
    value: [
      { id: "c1", ok: true },
      { id: "c2", ok: false, error: "locked" },
      { id: "c3", ok: true },
    ],
    failed: [{ index: 1, id: "c2", code: "TOOL_ERROR" }],
  },
  {
    name: "batch results with HTTP statuses",
    value: {
      results: [
        { id: "a", status: 201 },
        { id: "b", status: 429 },
        { id: "c", status: 403 },
        { id: "d", status: 200 },
      ],
    },
    failed: [
      { index: 1, id: "b", code: "RATE_LIMITED" },
      { index: 2, id: "c", code: "FORBIDDEN" },
    ],
  },
  {
    name: "a Microsoft Graph-style $batch",
    value: {
      responses: [
        { id: "1", status: 200, body: {} },
        { id: "2", status: 404, body: { error: { code: "ItemNotFound" } } },
      ],
    },
    failed: [{ index: 1, id: "2", code: "NOT_FOUND" }],
  },
  {
    name: "a Salesforce composite response",
    value: {
      compositeResponse: [
        { referenceId: "NewAccount", httpStatusCode: 201, body: { id: "001" } },
        { referenceId: "NewContact", httpStatusCode: 400, body: [{ errorCode: "REQUIRED_FIELD_MISSING" }] },
      ],
    },
    failed: [{ index: 1, id: "NewContact", code: "INVALID_REQUEST" }],
  },
  {
    name: "an Elasticsearch bulk response",
    value: {
      took: 5,
      errors: true,
      items: [
        { index: { _id: "1", status: 201 } },
        { index: { _id: "2", status: 409, error: { type: "version_conflict_engine_exception" } } },
      ],
    },
    failed: [{ index: 1, id: "2", code: "VERSION_CONFLICT_ENGINE_EXCEPTION" }],
  },
  {
    name: "items with error fields under data",
    value: { data: [{ id: 1 }, { id: 2, error: { code: "DUPLICATE" } }, { id: 3 }] },
    failed: [{ index: 1, id: 2, code: "DUPLICATE" }],
  },
  {
    name: "Promise.allSettled entries",
    value: [
      { status: "fulfilled", value: 1 },
      { status: "rejected", reason: new Error("boom") },
    ],
    failed: [{ index: 1, code: "UNHANDLED_ERROR" }],
  },
  {
    name: "a failed item at the end of a ~20 KB list",
    value: {
      results: [
        ...Array.from({ length: 199 }, (_, i) => ({ id: `r${i}`, ok: true, note: "y".repeat(80) })),
        { id: "r199", ok: false, error: { code: "QUOTA_EXCEEDED" } },
      ],
    },
    failed: [{ index: 199, id: "r199", code: "QUOTA_EXCEEDED" }],
  },
];

/** Values that are data: the detector must not flag any. */
export const legitimate: readonly LegitimateCase[] = [...ownLegitimate, ...apiLegitimate];
/** Values that are failures, with the code each is caught with. */
export const failing: readonly FailingCase[] = [...ownFailing, ...apiFailing];
/** Lists some of whose items failed. */
export const partial: readonly PartialCase[] = [...ownPartial, ...apiPartial];
