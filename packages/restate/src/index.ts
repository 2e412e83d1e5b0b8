/**
 * `@needlework/restate`: needlework runs inside Restate workflows (Node 22 or later: Restate's SDK
 * uses `Promise.withResolvers`). A test server is in `@needlework/restate/testing`.
 *
 * @example
 * ```ts
 * import { RestateExecution, restateDecisionHandlers } from "@needlework/restate";
 *
 * const agent = factory.createAgent({ name: "support", instructions, chatClient, execution: RestateExecution.factory() });
 * ```
 * @packageDocumentation
 */
export {
  RESTATE_RUN_STATE,
  RestateExecution,
  type RestateExecutionOptions,
  restateDecisionPromise,
} from "./restate-execution.js";
export {
  type DeadLetterPausedRunsOptions,
  deadLetterPausedRuns,
  type RestateDecision,
  type RestateDecisionHandlersOptions,
  restateDecisionHandlers,
  sendRestateDecision,
} from "./restate-runs.js";
export type { DecisionDelivery } from "@needlework/durable";
