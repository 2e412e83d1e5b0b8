// The AWS SDK v3's service errors: throttling and meaning carried by the error's name.
import { read } from "./error-chain.js";
import { mapHttpStatus } from "./http-status.js";
import type { MappedError } from "./mapped-error.js";

/** AWS error names that mean "throttled" (several services answer them with HTTP 400). */
const AWS_THROTTLING: ReadonlySet<string> = new Set([
  "ThrottlingException",
  "Throttling",
  "ThrottledException",
  "TooManyRequestsException",
  "ProvisionedThroughputExceededException",
  "RequestLimitExceeded",
  "RequestThrottled",
  "RequestThrottledException",
  "SlowDown",
  "BandwidthLimitExceeded",
  "TransactionInProgressException",
  "EC2ThrottledException",
  "PriorRequestNotComplete",
]);

/** AWS error names whose meaning the HTTP status (often 400) does not carry. */
const AWS_BY_NAME: ReadonlyMap<string, number> = new Map([
  ["ConditionalCheckFailedException", 409],
  ["TransactionConflictException", 409],
  ["ResourceNotFoundException", 404],
  ["NoSuchKey", 404],
  ["NoSuchBucket", 404],
  ["AccessDeniedException", 403],
  ["AccessDenied", 403],
  ["UnrecognizedClientException", 401],
  ["InvalidSignatureException", 401],
  ["SignatureDoesNotMatch", 401],
  ["ExpiredTokenException", 401],
  ["InvalidClientTokenId", 401],
]);

/** An AWS SDK v3 service error (it carries `$metadata`), by its name, `$retryable` and status. @internal */
export function mapAws(candidate: unknown, now: () => number): MappedError | undefined {
  if (typeof read(candidate, "$metadata") !== "object") return undefined;
  const name = read(candidate, "name");
  const headers = read(read(candidate, "$response"), "headers");
  const throttling = read(read(candidate, "$retryable"), "throttling") === true;
  if (throttling || (typeof name === "string" && AWS_THROTTLING.has(name))) {
    const mapped = mapHttpStatus(429, headers, now)!;
    const status = read(read(candidate, "$metadata"), "httpStatusCode");
    // Named by what the service said: its status when that is 429, else the (fixed) throttling name.
    if (status === 429 || typeof name !== "string" || !AWS_THROTTLING.has(name)) return mapped;
    return { ...mapped, message: mapped.message.replace("(HTTP 429)", `(${name})`) };
  }
  const byName = typeof name === "string" ? AWS_BY_NAME.get(name) : undefined;
  if (byName !== undefined) return mapHttpStatus(byName, headers, now);
  return undefined; // status, network codes and `$fault` are read as for any error
}
