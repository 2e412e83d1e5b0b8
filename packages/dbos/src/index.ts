/**
 * `@needlework/dbos`: needlework runs inside DBOS Transact workflows on your PostgreSQL.
 *
 * @example
 * ```ts
 * import { DbosExecution } from "@needlework/dbos";
 *
 * const agent = factory.createAgent({ name: "support", instructions, chatClient, execution: DbosExecution.factory() });
 * ```
 * @packageDocumentation
 */
export {
  type DbosDecisionMessage,
  DbosExecution,
  type DbosExecutionOptions,
  dbosDecisionTimedOutStep,
  dbosDecisionTopic,
  dbosRefusedDecisionStep,
} from "./dbos-execution.js";
export {
  type DbosMessenger,
  type DbosWorkflowAdmin,
  type DeadLetterExhaustedRunsOptions,
  deadLetterExhaustedRuns,
  type OtherVersionRun,
  runsOfOtherVersions,
  sendDbosDecision,
} from "./dbos-runs.js";
export type { DecisionDelivery } from "@needlework/durable";
