import { randomUUID } from "node:crypto";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";

/**
 * The SDK's `Server`, naming each connection: every `connect()` (stdio, Streamable HTTP, in-memory)
 * starts a new connection id, the default run id of the calls it carries. One run per connection
 * is what lets the injection policy see that an earlier call of the same client read untrusted
 * content; a fresh run per call would let every call start clean. @internal
 */
export class ConnectionServer extends Server {
  #connection = `mcp_connection_${randomUUID()}`;

  /** Connects to `transport` as a new connection (a new default run id). */
  override async connect(transport: Transport): Promise<void> {
    this.#connection = `mcp_connection_${randomUUID()}`;
    return super.connect(transport);
  }

  /** The run id of the connection in use: the default of calls whose `runId` option names none. */
  get connectionRunId(): string {
    return this.#connection;
  }
}

/**
 * The run id of one call: the `runId` option's (a string, or what its function returns), else the
 * connection's. A `runId` function answering anything but a string or `undefined` is a mistake
 * the server reports as a callback failure (nothing runs), not a run id. @internal
 */
export function runIdOfCall<Info>(
  runId: string | ((info: Info) => string | undefined) | undefined,
  info: Info,
  connection: string,
): string {
  const given: unknown = typeof runId === "function" ? runId(info) : runId;
  if (given === undefined) return connection;
  if (typeof given !== "string" || given === "")
    throw new TypeError("createMcpServer: the runId option must give a non-empty string or undefined.");
  return given;
}
