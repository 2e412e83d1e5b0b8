import { request } from "gaxios";
import { CLIENT_TIMEOUT_MS, describeClient } from "./support.js";

// gaxios throws GaxiosError with `status` and `response` (a fetch-style Response: `headers` a
// Headers), `code` "TimeoutError" for its timeout and Node's code for the connection. Its cause is
// the response body's error object: never shown. Its own retries are off so that resilience decides.
describeClient({
  name: "gaxios",
  send: (url, signal) => request({ url, method: "POST", data: { name: "Ada" }, signal, retry: false }),
  sendWithTimeout: (url, signal) =>
    request({ url, method: "POST", data: { name: "Ada" }, signal, retry: false, timeout: CLIENT_TIMEOUT_MS }),
});
