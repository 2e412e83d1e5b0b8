import { type ChatClient, mapThrownError, NeedleworkError } from "@needlework/core";
import type { TraceAttributes } from "./otel-types.js";
import { UNKNOWN_PROVIDER } from "./run-statuses.js";
import { TRACE_ATTRIBUTES as A } from "./trace-attributes.js";

/** A non-empty string property of a value a provider package wrote, or undefined; never throws. @internal */
export function stringProperty(value: unknown, key: string): string | undefined {
  try {
    const property = (value as Record<string, unknown> | undefined)?.[key];
    return typeof property === "string" && property !== "" ? property : undefined;
  } catch {
    return undefined;
  }
}

function numberProperty(value: unknown, key: string): number | undefined {
  try {
    const property = (value as Record<string, unknown> | undefined)?.[key];
    return typeof property === "number" && Number.isFinite(property) ? property : undefined;
  } catch {
    return undefined;
  }
}

/** `gen_ai.provider.name`, `gen_ai.request.*` and `server.*` of a chat client, as far as it tells them. @internal */
export function clientAttributes(client: ChatClient | undefined): TraceAttributes {
  const model = stringProperty(client, "model");
  const temperature = numberProperty(client, "temperature");
  const maxTokens = numberProperty(client, "maxTokens");
  let endpoint: unknown;
  try {
    endpoint = client?.endpoint;
  } catch {
    endpoint = undefined;
  }
  const address = stringProperty(endpoint, "address");
  const port = numberProperty(endpoint, "port");
  return {
    [A.providerName]: stringProperty(client, "provider") ?? UNKNOWN_PROVIDER,
    ...(model === undefined ? {} : { [A.requestModel]: model }),
    ...(temperature === undefined ? {} : { [A.requestTemperature]: temperature }),
    ...(maxTokens === undefined ? {} : { [A.requestMaxTokens]: maxTokens }),
    ...(address === undefined ? {} : { [A.serverAddress]: address }),
    ...(address === undefined || port === undefined ? {} : { [A.serverPort]: port }),
  };
}

/**
 * `error.type` of a failed model call (or of the run it ended), as the GenAI conventions prefer it:
 * the HTTP status code the model server answered (`"500"`, `"429"`), else the error's own stable
 * code (`OPENAI_CONNECTION_FAILED`), else needlework's mapping of the thrown value.
 * @internal
 */
export function modelErrorType(error: unknown): string {
  const status = numberProperty(error, "status");
  if (status !== undefined && Number.isInteger(status) && status >= 400 && status <= 599) return String(status);
  if (NeedleworkError.isInstance(error)) return error.code;
  return mapThrownError(error).code;
}
