import Stripe from "stripe";
import { CLIENT_TIMEOUT_MS, describeClient } from "./support.js";

// Stripe throws StripeError subclasses named by `type` (StripeRateLimitError, StripeAPIError,
// StripeConnectionError...) with `statusCode` and plain `headers`; its `code` is Stripe's own
// ("card_declined"), never an HTTP status. A connection failure keeps Node's error on `detail`.
const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "invalid_request_error",
  403: "invalid_request_error",
  404: "invalid_request_error",
  409: "idempotency_error",
  422: "invalid_request_error",
  429: "rate_limit_error",
};

function client(url: string, timeout?: number): Stripe {
  const { hostname, port } = new URL(url);
  return new Stripe("sk_test_local", {
    host: hostname,
    port: Number(port),
    protocol: "http",
    maxNetworkRetries: 0,
    ...(timeout === undefined ? {} : { timeout }),
  });
}

describeClient({
  name: "Stripe",
  send: (url) => client(url).customers.create({ email: "ada@example.com" }),
  sendWithTimeout: (url) => client(url, CLIENT_TIMEOUT_MS).customers.create({ email: "ada@example.com" }),
  ownResetRetries: 1,
  shape: (status) => ({
    body: { error: { type: ERROR_TYPES[status] ?? "api_error", code: "resource_missing", message: "sk-live-secret" } },
  }),
});
