// Test support (not exported): DBOS as a DurableExecutionHarness for the contract suite. An attempt is
// one execution of a DBOS workflow (id = run id); stopping it shuts DBOS down as a dying process
// would (nothing more is recorded) and launches it again, which recovers the pending workflows:
// each starts a new attempt that replays what DBOS recorded.
import { DBOS } from "@dbos-inc/dbos-sdk";
import type { DurableExecution } from "@needlework/durable";
import { DbosExecution } from "../src/index.js";
import { AttemptChannel, Attempts, throughChannel } from "./attempt-channel.js";
import { DBOS_DATABASE_URL, dropDbosSchema, freshSchema } from "./test-database.js";

const attempts = new Attempts();

/** Registered once per process, before the first launch (DBOS's rule). */
const attemptWorkflow = DBOS.registerWorkflow(
  async () => {
    const runId = DBOS.workflowID!;
    const channel = new AttemptChannel();
    attempts.hand(runId, throughChannel(new DbosExecution({ runId, agent: "contract" }), channel));
    await channel.serve();
  },
  { name: "needlework_contract_attempt" },
);

let schema: string | undefined;

function configure(): void {
  DBOS.setConfig({
    name: "needlework-contract",
    systemDatabaseUrl: DBOS_DATABASE_URL,
    systemDatabaseSchemaName: schema!,
    applicationVersion: "contract",
    logLevel: "error",
  });
}

/** A harness over DBOS on a schema of this test file (launched once; each run has an id of its own). */
export async function dbosHarness() {
  if (schema === undefined) {
    schema = freshSchema("nw_dbos_contract");
    configure();
    await DBOS.launch();
  }
  const started = new Set<string>();
  return {
    async open(runId: string): Promise<DurableExecution> {
      if (!started.has(runId)) {
        started.add(runId);
        await DBOS.startWorkflow(attemptWorkflow, { workflowID: runId })();
      }
      return attempts.take(runId);
    },
    async stop(_execution: DurableExecution): Promise<void> {
      await DBOS.shutdown();
      configure();
      await DBOS.launch();
    },
  };
}

/** Shuts DBOS down and drops the harness's schema. */
export async function closeDbosHarness(): Promise<void> {
  if (schema === undefined) return;
  await DBOS.shutdown();
  attempts.clear();
  await dropDbosSchema(schema);
  schema = undefined;
}
