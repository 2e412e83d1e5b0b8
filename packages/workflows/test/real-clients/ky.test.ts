import ky from "ky";
import { CLIENT_TIMEOUT_MS, describeClient } from "./support.js";

// ky throws HTTPError with `response` (a fetch Response: `status`, `headers` a Headers), its own
// TimeoutError, and NetworkError wrapping undici's TypeError (cause: SocketError UND_ERR_SOCKET, or
// the connect error ECONNREFUSED). Its own retries are turned off so that resilience decides.
describeClient({
  name: "ky",
  send: (url, signal) => ky.post(url, { json: { name: "Ada" }, signal, retry: 0 }).json(),
  sendWithTimeout: (url, signal) =>
    ky.post(url, { json: { name: "Ada" }, signal, retry: 0, timeout: CLIENT_TIMEOUT_MS }).json(),
});
