import { durableExecutionContract } from "@needlework/durable/testing";
import { afterAll } from "vitest";
import { restateServerBinary } from "../src/testing.js";
import { cannotRun } from "../../../test/support/cannot-run.js";
import { closeRestateHarness, restateHarness } from "./restate-harness.js";

if (restateServerBinary() === undefined) {
  cannotRun("RestateExecution", "no restate-server binary: run `npx -y pnpm@10 install` (@restatedev/restate-server)");
} else {
  afterAll(closeRestateHarness);
  durableExecutionContract("Restate", restateHarness);
}
