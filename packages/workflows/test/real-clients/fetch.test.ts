import { CLIENT_TIMEOUT_MS, describeClient } from "./support.js";

// Node's fetch (undici): a failed status is a returned Response, which a tool throws as it is
// (`if (!response.ok) throw response`); transport failures are TypeError "fetch failed" with the
// cause (SocketError UND_ERR_SOCKET, the connect error ECONNREFUSED); AbortSignal.timeout() rejects
// with a DOMException named TimeoutError.
async function post(url: string, signal: AbortSignal): Promise<unknown> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "Ada" }),
    signal,
  });
  if (!response.ok) throw response;
  return response.json();
}

describeClient({
  name: "fetch",
  send: post,
  sendWithTimeout: (url, signal) => post(url, AbortSignal.any([signal, AbortSignal.timeout(CLIENT_TIMEOUT_MS)])),
});
