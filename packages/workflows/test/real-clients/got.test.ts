import got from "got";
import { CLIENT_TIMEOUT_MS, describeClient } from "./support.js";

// got throws HTTPError with `response.statusCode` and lower-cased plain `response.headers`,
// RequestError with Node's `code` (ECONNRESET, ECONNREFUSED) and TimeoutError with code ETIMEDOUT.
// Its own retries are turned off so that resilience decides.
describeClient({
  name: "got",
  send: (url, signal) => got.post(url, { json: { name: "Ada" }, signal, retry: { limit: 0 } }).json(),
  sendWithTimeout: (url, signal) =>
    got
      .post(url, { json: { name: "Ada" }, signal, retry: { limit: 0 }, timeout: { request: CLIENT_TIMEOUT_MS } })
      .json(),
});
