import { durableExecutionContract } from "@needlework/durable/testing";
import { afterAll } from "vitest";
import { closeDbosHarness, dbosHarness } from "./dbos-harness.js";
import { describeWithPostgres } from "./test-database.js";

describeWithPostgres("DbosExecution", () => {
  afterAll(closeDbosHarness);
  durableExecutionContract("DBOS", dbosHarness);
});
