// Test support (not exported): Restate as a DurableExecutionHarness for the contract suite. One server
// (the npm binary) and one endpoint in this process per test file; an attempt is one invocation of a
// workflow's run handler (key = run id); stopping it fails the invocation as a dying endpoint would,
// and Restate retries it: the next attempt replays the journal.
import http2 from "node:http2";
import type { DurableExecution } from "@needlework/durable";
import * as restate from "@restatedev/restate-sdk";
import { AttemptChannel, Attempts, throughChannel } from "../../dbos/test/attempt-channel.js";
import { RestateExecution } from "../src/index.js";
import { freePort, type RestateServer, startRestateServer } from "../src/testing.js";

const WORKFLOW = "needlework_contract_attempt";
const attempts = new Attempts();
const channels = new WeakMap<DurableExecution, AttemptChannel>();

let server: RestateServer | undefined;
const sessions = new Set<http2.ServerHttp2Session>();
let closeEndpoint: () => Promise<void> = async () => undefined;

function contractWorkflow(adminUrl: string) {
  return restate.workflow({
    name: WORKFLOW,
    handlers: {
      run: async (ctx: restate.WorkflowContext) => {
        const channel = new AttemptChannel();
        const execution = throughChannel(
          new RestateExecution(ctx, { runId: ctx.key, agent: "contract" }, { adminUrl }),
          channel,
        );
        channels.set(execution, channel);
        attempts.hand(ctx.key, execution);
        await channel.serve();
      },
    },
    options: { retryPolicy: { initialInterval: 20, maxInterval: 100 } },
  });
}

/** A harness over this file's Restate server (started on first use). */
export async function restateHarness() {
  if (server === undefined) {
    server = await startRestateServer();
    const port = await freePort();
    const endpoint = http2.createServer(
      restate.createEndpointHandler({ services: [contractWorkflow(server.adminUrl)], logger: () => undefined }),
    );
    endpoint.on("session", (session) => {
      sessions.add(session);
      session.once("close", () => sessions.delete(session));
    });
    await new Promise<void>((resolve) => endpoint.listen(port, "127.0.0.1", resolve));
    closeEndpoint = () => new Promise<void>((resolve) => endpoint.close(() => resolve()));
    await server.register(`http://127.0.0.1:${port}`);
  }
  const ingress = server.ingressUrl;
  const started = new Set<string>();
  return {
    async open(runId: string): Promise<DurableExecution> {
      if (started.has(runId)) return attempts.take(runId);
      started.add(runId);
      const response = await fetch(`${ingress}/${WORKFLOW}/${runId}/run/send`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "null",
      });
      if (!response.ok) throw new Error(`Restate did not start ${runId}: ${response.status}`);
      return attempts.take(runId);
    },
    async stop(execution: DurableExecution): Promise<void> {
      // As a dying endpoint: its connections drop (Restate retries the invocation), its attempt ends.
      for (const session of sessions) session.destroy();
      channels.get(execution)?.kill();
    },
  };
}

/** Stops the server. */
export async function closeRestateHarness(): Promise<void> {
  for (const session of sessions) session.destroy();
  await closeEndpoint();
  await server?.stop();
  server = undefined;
}
