import { CLIENT_TIMEOUT_MS, describeClient } from "./support.js";

// openapi-generator has no package to install: each SDK is generated. These are the two shapes its
// TypeScript generators emit, written as they generate them.

/** The `typescript` generator's ApiException: numeric `code` (the HTTP status), `body`, plain `headers`; all in the message. */
class ApiException<T> extends Error {
  constructor(
    public code: number,
    message: string,
    public body: T,
    public headers: { [key: string]: string },
  ) {
    super(
      `HTTP-Code: ${code}\nMessage: ${message}\nBody: ${JSON.stringify(body)}\nHeaders: ${JSON.stringify(headers)}`,
    );
  }
}

/** The `typescript-fetch` generator's ResponseError, holding the fetch `Response`. */
class ResponseError extends Error {
  override name = "ResponseError" as const;
  constructor(
    public response: Response,
    msg?: string,
  ) {
    super(msg);
  }
}

async function request(url: string, signal: AbortSignal): Promise<Response> {
  return fetch(`${url}/contacts`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "Ada" }),
    signal,
  });
}

/** What a `typescript` generated `ContactsApi.createContact` does with a response it has no model for. */
async function createContactApiException(url: string, signal: AbortSignal): Promise<unknown> {
  const response = await request(url, signal);
  if (response.ok) return response.json();
  const headers: { [key: string]: string } = {};
  response.headers.forEach((value, key) => {
    headers[key] = value;
  });
  throw new ApiException<string>(response.status, "Unknown API Status Code!", await response.text(), headers);
}

/** What a `typescript-fetch` generated `ContactsApi.createContactRaw` does with a failing status. */
async function createContactResponseError(url: string, signal: AbortSignal): Promise<unknown> {
  const response = await request(url, signal);
  if (response.status >= 200 && response.status < 300) return response.json();
  throw new ResponseError(response, "Response returned an error code");
}

const withTimeout = (signal: AbortSignal) => AbortSignal.any([signal, AbortSignal.timeout(CLIENT_TIMEOUT_MS)]);

describeClient({
  name: "openapi-generator (typescript) ApiException",
  send: createContactApiException,
  sendWithTimeout: (url, signal) => createContactApiException(url, withTimeout(signal)),
});

describeClient({
  name: "openapi-generator (typescript-fetch) ResponseError",
  send: createContactResponseError,
  sendWithTimeout: (url, signal) => createContactResponseError(url, withTimeout(signal)),
});
