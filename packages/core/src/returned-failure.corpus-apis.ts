/*
 * The real-API part of the returned-failure corpus: payloads in the shapes real services document,
 * each labelled with its `source` (the API and the page that shows the shape). Legitimate payloads
 * carry words, fields and numbers that look like failures but describe the world (a failed charge, a
 * log line's error, a login that failed, a site that answers 503); failing payloads are the same
 * services' own failure bodies. `misses` are failures the default detector leaves as data on purpose
 * (precision before reach): the model still reads them in `data`.
 */
import type { FailingCase, LegitimateCase, PartialCase } from "./returned-failure.corpus-types.js";

/** A failure the default detector leaves as data: `visible` is text the model reads in `data`. */
export interface MissCase {
  readonly name: string;
  readonly source: string;
  readonly value: unknown;
  readonly visible: string;
}

export const apiLegitimate: readonly LegitimateCase[] = [
  {
    name: "GitHub: a repository",
    source: "GitHub REST, GET /repos/{owner}/{repo}",
    value: { id: 1296269, name: "Hello-World", full_name: "octocat/Hello-World", private: false, open_issues_count: 3 },
  },
  {
    name: "GitHub: check runs whose conclusion is failure",
    source: "GitHub REST, GET /repos/{owner}/{repo}/commits/{ref}/check-runs",
    value: {
      total_count: 2,
      check_runs: [
        {
          id: 4,
          name: "build",
          status: "completed",
          conclusion: "failure",
          output: { title: "1 error", summary: "tsc failed" },
        },
        { id: 5, name: "lint", status: "completed", conclusion: "success" },
      ],
    },
  },
  {
    name: "GitHub: a combined status in state error",
    source: "GitHub REST, GET /repos/{owner}/{repo}/commits/{ref}/status",
    value: {
      state: "error",
      statuses: [{ state: "error", context: "ci/deploy", description: "Deploy failed" }],
      total_count: 1,
    },
  },
  {
    name: "GitHub: issues titled with errors",
    source: "GitHub REST, GET /repos/{owner}/{repo}/issues",
    value: [
      { id: 1, number: 1347, title: "Error: request failed with status 500", state: "open", labels: [{ name: "bug" }] },
      { id: 2, number: 1348, title: "Login fails on Safari", state: "closed" },
    ],
  },
  {
    name: "Stripe: a charge that failed",
    source: "Stripe API, the Charge object",
    value: {
      id: "ch_3MmlLrLkdIwHu7ix0snN0B15",
      object: "charge",
      amount: 1099,
      paid: false,
      status: "failed",
      failure_code: "card_declined",
      failure_message: "Your card was declined.",
      outcome: { network_status: "declined_by_network", reason: "generic_decline", type: "issuer_declined" },
    },
  },
  {
    name: "Stripe: a payment intent with its last payment error",
    source: "Stripe API, the PaymentIntent object",
    value: {
      id: "pi_3MtwBwLkdIwHu7ix28a3tqPa",
      object: "payment_intent",
      status: "requires_payment_method",
      last_payment_error: {
        code: "card_declined",
        decline_code: "insufficient_funds",
        message: "Your card has insufficient funds.",
      },
    },
  },
  {
    name: "Stripe: a list of charges, some failed",
    source: "Stripe API, GET /v1/charges",
    value: {
      object: "list",
      url: "/v1/charges",
      has_more: false,
      data: [
        { id: "ch_1", object: "charge", status: "succeeded", paid: true },
        { id: "ch_2", object: "charge", status: "failed", paid: false, failure_code: "expired_card" },
      ],
    },
  },
  {
    name: "Shopify GraphQL: a mutation with no user errors",
    source: "Shopify Admin GraphQL, productCreate",
    value: { data: { productCreate: { product: { id: "gid://shopify/Product/1", title: "Hat" }, userErrors: [] } } },
  },
  {
    name: "JSend: success",
    source: "JSend specification (github.com/omniti-labs/jsend)",
    value: { status: "success", data: { post: { id: 1, title: "A blog post", body: "Some useful content" } } },
  },
  {
    name: "Elasticsearch: log hits whose records carry an error",
    source: "Elasticsearch _search response",
    value: {
      took: 5,
      timed_out: false,
      _shards: { total: 1, successful: 1, skipped: 0, failed: 0 },
      hits: {
        total: { value: 2, relation: "eq" },
        hits: [
          {
            _index: "logs",
            _id: "a1",
            _source: {
              level: "error",
              message: "payment failed",
              error: { type: "ConnectionError", message: "connect ECONNREFUSED" },
            },
          },
          { _index: "logs", _id: "a2", _source: { level: "warn", message: "retrying" } },
        ],
      },
    },
  },
  {
    name: "a log search tool's hits, each with an error field",
    source: "log search tools over Loki, CloudWatch Logs Insights or Datadog (fields per hit)",
    value: {
      total: 2,
      results: [
        {
          timestamp: "2026-11-26T10:00:02Z",
          service: "billing",
          level: "error",
          message: "charge failed",
          error: "card_declined",
        },
        {
          timestamp: "2026-11-26T10:00:05Z",
          service: "billing",
          level: "error",
          message: "timeout",
          error: { code: "ETIMEDOUT", message: "upstream timed out" },
        },
      ],
    },
  },
  {
    name: "ESLint: lint results with errors",
    source: "ESLint Node.js API, LintResult",
    value: [
      {
        filePath: "/repo/src/index.ts",
        messages: [{ ruleId: "semi", severity: 2, message: "Missing semicolon.", line: 3, column: 14 }],
        errorCount: 1,
        fatalErrorCount: 0,
        warningCount: 0,
        fixableErrorCount: 1,
        fixableWarningCount: 0,
      },
    ],
  },
  {
    name: "a lint report's errors at the top level",
    source: "linters and type checkers that report findings per file (file, line, message, rule)",
    value: {
      file: "src/a.ts",
      errors: [{ line: 3, column: 5, message: "Missing semicolon.", rule: "semi" }],
      warnings: [],
    },
  },
  {
    name: "a spell-check report's errors",
    source: "spell checkers (word, offset, suggestions)",
    value: { text: "Teh quick fox", errors: [{ word: "Teh", offset: 0, suggestions: ["The"] }] },
  },
  {
    name: "an uptime check of a site answering 503",
    source: "uptime monitors (a check's target, status and latency)",
    value: { target: "https://shop.example/health", status: 503, latencyMs: 812, checkedAt: "2026-11-26T10:00:00Z" },
  },
  {
    name: "an uptime monitor list with a site down",
    source: "UptimeRobot API v2, getMonitors",
    value: { stat: "ok", monitors: [{ id: 777749809, friendly_name: "Shop", url: "https://shop.example", status: 9 }] },
  },
  {
    name: "uptime checks in a results list, one answering 503",
    source: "uptime monitors (per-check records)",
    value: {
      results: [
        { monitor: "api", status: 200, responseTimeMs: 120 },
        { monitor: "checkout", status: 503, responseTimeMs: 3000, error: "Service Unavailable" },
      ],
    },
  },
  {
    name: "an auth audit log with failed logins",
    source: "auth audit logs (Auth0, Okta, Keycloak events: actor, action, outcome)",
    value: {
      data: [
        {
          id: "evt_1",
          actor: "jane@example.com",
          action: "user.login",
          success: false,
          ip: "203.0.113.7",
          at: "2026-11-26T09:59:00Z",
        },
        {
          id: "evt_2",
          actor: "jane@example.com",
          action: "user.login",
          success: true,
          ip: "203.0.113.7",
          at: "2026-11-26T10:00:00Z",
        },
      ],
    },
  },
  {
    name: "one auth audit entry with success: false",
    source: "auth audit logs (one event)",
    value: { id: "evt_9", user: "sam", event: "login", success: false, reason: "wrong_password" },
  },
  {
    name: "a test report listing failures",
    source: "test runners' JSON reports (JUnit-style counts and failures)",
    value: {
      tests: 120,
      passed: 118,
      failed: 2,
      failures: [{ name: "login works", message: "expected 200, got 500" }],
    },
  },
  {
    name: "a CI run whose failed jobs are named",
    source: "CI APIs (jobs by name and conclusion)",
    value: { run: 88, passed: [{ name: "lint" }], failed: [{ name: "e2e", duration: 312 }] },
  },
];

export const apiFailing: readonly FailingCase[] = [
  {
    name: "GitHub: 404 error body",
    source: "GitHub REST, client errors",
    value: { message: "Not Found", documentation_url: "https://docs.github.com/rest", status: "404" },
    code: "NOT_FOUND",
    retriable: false,
  },
  {
    name: "GitHub: 422 validation failed",
    source: "GitHub REST, client errors",
    value: {
      message: "Validation Failed",
      errors: [{ resource: "Issue", field: "title", code: "missing_field" }],
      documentation_url: "https://docs.github.com/rest/issues/issues#create-an-issue",
    },
    code: "TOOL_ERROR",
    retriable: false,
  },
  {
    name: "Stripe: an error body",
    source: "Stripe API, Errors",
    value: {
      error: {
        type: "card_error",
        code: "card_declined",
        decline_code: "generic_decline",
        message: "Your card was declined.",
      },
    },
    code: "CARD_DECLINED",
    retriable: false,
  },
  {
    name: "Shopify GraphQL: userErrors",
    source: "Shopify Admin GraphQL, productCreate",
    value: {
      data: { productCreate: { product: null, userErrors: [{ field: ["title"], message: "Title can't be blank" }] } },
    },
    code: "INVALID_REQUEST",
    retriable: false,
  },
  {
    name: "a mutation payload's userErrors with a code",
    source: "Shopify Admin GraphQL, UserError with code",
    value: {
      customer: null,
      userErrors: [{ field: ["email"], message: "Email has already been taken", code: "TAKEN" }],
    },
    code: "TAKEN",
    retriable: false,
  },
  {
    name: "Shopify REST: errors as text",
    source: "Shopify Admin REST, 401",
    value: { errors: "[API] Invalid API key or access token (unrecognized login or wrong password)" },
    code: "TOOL_ERROR",
    retriable: false,
  },
  {
    name: "JSend: error",
    source: "JSend specification",
    value: { status: "error", message: "Unable to communicate with database" },
    code: "TOOL_ERROR",
    retriable: false,
  },
  {
    name: "JSend: fail",
    source: "JSend specification",
    value: { status: "fail", data: { title: "A title is required" } },
    code: "INVALID_REQUEST",
    retriable: false,
  },
  {
    name: "a nested { result: { ok: false } }",
    source: "tools that wrap a client's answer in result",
    value: { result: { ok: false, error: "channel_not_found" } },
    code: "CHANNEL_NOT_FOUND",
    retriable: false,
  },
  {
    name: "a bare { statusCode: 500 }",
    source: "AWS Lambda proxy and NestJS error bodies",
    value: { statusCode: 500 },
    code: "UPSTREAM_ERROR",
    retriable: true,
  },
  {
    name: "a NestJS error body",
    source: "NestJS HttpException response",
    value: { statusCode: 503, message: "Service Unavailable", error: "Service Unavailable" },
    code: "UPSTREAM_UNAVAILABLE",
    retriable: true,
  },
  {
    name: "an RFC 9457 problem",
    source: "RFC 9457 Problem Details for HTTP APIs",
    value: {
      type: "https://example.com/probs/out-of-credit",
      title: "You do not have enough credit.",
      status: 403,
      detail: "Your balance is 30.",
    },
    code: "FORBIDDEN",
    retriable: false,
  },
  {
    name: "Elasticsearch: index not found",
    source: "Elasticsearch error response",
    value: {
      error: { root_cause: [], type: "index_not_found_exception", reason: "no such index [logs]" },
      status: 404,
    },
    code: "INDEX_NOT_FOUND_EXCEPTION",
    retriable: false,
  },
  {
    name: "UptimeRobot: stat fail",
    source: "UptimeRobot API v2, errors",
    value: {
      stat: "fail",
      error: { type: "invalid_parameter", parameter_name: "api_key", message: "api_key is invalid." },
    },
    code: "INVALID_PARAMETER",
    retriable: false,
  },
  {
    name: "JSON-RPC: an error",
    source: "JSON-RPC 2.0 specification",
    value: { jsonrpc: "2.0", id: 1, error: { code: -32603, message: "Internal error" } },
    code: "TOOL_ERROR",
    retriable: false,
  },
  {
    name: "twelve errors with codes in one result",
    source: "bulk validation APIs (one error per field)",
    value: {
      errors: [
        ...Array.from({ length: 5 }, (_, i) => ({ code: "FORBIDDEN", message: `field ${i}` })),
        ...Array.from({ length: 4 }, (_, i) => ({ code: "TIMEOUT", message: `field ${5 + i}` })),
        { code: "NOT_FOUND", message: "field 9" },
        { code: "CONFLICT", message: "field 10" },
        { code: "RATE_LIMITED", message: "field 11" },
      ],
    },
    code: "TOOL_ERROR",
    retriable: false,
  },
];

export const apiPartial: readonly PartialCase[] = [
  {
    name: "failures in a second list",
    source: "bulk APIs answering created and failed lists",
    value: {
      created: [{ id: "c1" }, { id: "c3" }],
      failed: [{ id: "c2", error: { code: "CONTACT_LOCKED", message: "Locked." } }],
    },
    failed: [{ index: 0, id: "c2", code: "CONTACT_LOCKED" }],
  },
  {
    name: "a failed item in the second batch list",
    source: "APIs answering results and items",
    value: {
      results: [{ id: "a", title: "ok" }],
      items: [
        { id: "x1", ok: true },
        { id: "x2", ok: false, error: "quota_exceeded" },
      ],
    },
    failed: [{ index: 1, id: "x2", code: "QUOTA_EXCEEDED" }],
  },
];

export const misses: readonly MissCase[] = [
  {
    name: "a failure two records down",
    source: "a job API answering the job with its own error",
    value: { job: { id: "j1", state: "failed", error: "disk full on worker 3" } },
    visible: "disk full on worker 3",
  },
  {
    name: "a failure beside domain data in a list item",
    source: "a batch whose items keep their payload",
    value: { results: [{ id: "c2", email: "a@b.example", error: "contact locked by sync-7" }] },
    visible: "contact locked by sync-7",
  },
];
