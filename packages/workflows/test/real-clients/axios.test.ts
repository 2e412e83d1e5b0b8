import axios from "axios";
import { CLIENT_TIMEOUT_MS, describeClient } from "./support.js";

// axios throws AxiosError: `response.status` and `response.headers` (AxiosHeaders) for a status,
// `code` ECONNABORTED for its timeout, ECONNRESET / ECONNREFUSED from Node for the connection.
describeClient({
  name: "axios",
  send: (url, signal) => axios.post(url, { name: "Ada" }, { signal }),
  sendWithTimeout: (url, signal) => axios.post(url, { name: "Ada" }, { signal, timeout: CLIENT_TIMEOUT_MS }),
});
