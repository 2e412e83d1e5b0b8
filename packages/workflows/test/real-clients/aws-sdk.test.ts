import { DynamoDBClient, PutItemCommand } from "@aws-sdk/client-dynamodb";
import { describe, expect, it } from "vitest";
import { CLIENT_TIMEOUT_MS, describeClient, invokeWithClient, LocalServer } from "./support.js";

// The AWS SDK v3 (DynamoDB, JSON protocol) throws service exceptions named by the error type the
// service sends, with `$metadata.httpStatusCode`, `$fault` and `$retryable`, and the response's
// headers on `$response`. Throttling often comes as HTTP 400 (ProvisionedThroughputExceededException),
// so the name decides. Its own retries are off (maxAttempts 1) so that resilience decides.
const ERROR_TYPES: Record<number, string> = {
  400: "ValidationException",
  401: "UnrecognizedClientException",
  403: "AccessDeniedException",
  404: "ResourceNotFoundException",
  409: "ConditionalCheckFailedException",
  422: "ValidationException",
  429: "ThrottlingException",
  500: "InternalServerError",
  503: "ServiceUnavailableException",
};

function client(url: string, timeoutMs?: number): DynamoDBClient {
  return new DynamoDBClient({
    endpoint: url,
    region: "eu-west-1",
    credentials: { accessKeyId: "AKIDLOCAL", secretAccessKey: "local" },
    maxAttempts: 1,
    ...(timeoutMs === undefined ? {} : { requestHandler: { requestTimeout: timeoutMs, throwOnRequestTimeout: true } }),
  });
}

const put = (url: string, timeoutMs?: number) =>
  client(url, timeoutMs).send(
    new PutItemCommand({ TableName: "contacts", Item: { id: { S: "c-1" }, name: { S: "Ada" } } }),
  );

const shape = (status: number) => ({
  body: {
    __type: `com.amazonaws.dynamodb.v20120810#${ERROR_TYPES[status] ?? "InternalFailure"}`,
    message: "sk-live-secret",
  },
  headers: { "content-type": "application/x-amz-json-1.0" },
});

describeClient({
  name: "AWS SDK v3 (DynamoDB)",
  send: (url) => put(url),
  sendWithTimeout: (url) => put(url, CLIENT_TIMEOUT_MS),
  shape,
});

describe("AWS SDK v3 throttling names", () => {
  it("ProvisionedThroughputExceededException on HTTP 400 is RATE_LIMITED, retried for a write, and lands", async () => {
    const server = new LocalServer();
    await server.start();
    server.shape = () => ({
      body: { __type: "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException", message: "slow" },
      headers: { "content-type": "application/x-amz-json-1.0" },
    });
    try {
      server.reply({ status: 400 }, { status: 400 }, { status: 400 });
      const { outcome, waits } = await invokeWithClient(server, () => put(server.url));
      expect(waits).toHaveLength(2);
      expect(outcome).toMatchObject({
        status: "error",
        errorCode: "RATE_LIMITED",
        retriable: true,
        message: "Rate limited by the upstream service (ProvisionedThroughputExceededException).",
        metadata: { attempts: 3 },
      });
      server.reply({ status: 400 }, { status: 200, body: {} });
      const landed = await invokeWithClient(server, () => put(server.url));
      expect(landed.outcome).toMatchObject({ status: "ok", metadata: { attempts: 2 } });
    } finally {
      await server.stop();
    }
  });
});
