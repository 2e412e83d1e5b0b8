// Test support: the agent of the artifact resume test, the same in the child and in the test.
import type { ChatClient } from "@needlework/core";
import type { ArtifactStore } from "@needlework/durable";
import { usingAgentFramework } from "@needlework/workflows";
import { ReportTools } from "../../workflows/test/artifacts/artifact-fixtures.js";
import type { PostgresStore } from "../src/postgres-store.js";

export function artifactAgent(store: PostgresStore, artifacts: ArtifactStore, chatClient: ChatClient) {
  return usingAgentFramework()
    .addAgentFunctions(ReportTools)
    .usingToolResultMiddleware()
    .usingRedaction()
    .usingArtifacts({ store: artifacts })
    .buildAgentFactory({ printDiagnostics: false })
    .createAgent({ name: "analyst", instructions: "Read every order.", chatClient, store, maxIterations: 1000 });
}
