import type { ApprovalDecisions } from "./approvals/approval-options.js";
import { type AgentCheckpoint } from "./approvals/checkpoint.js";
import type { RunState } from "./loop/agent-loop.js";
import { emptyLedger } from "./loop/run-ledger.js";
import { emptyBudget } from "./policies/budgets.js";
import { emptyStall } from "./policies/stall.js";

/**
 * How a run starts, whichever public method starts it: a user's message (`run`, `stream`), approval
 * decisions on a checkpoint (`resume`, `resumeStream`), or the id of a journaled run (`resumeRun`,
 * `resumeRunStream`). One execution path takes all three (see `createAgent`). @internal
 */
export type RunStart =
  | { readonly kind: "input"; readonly input: string; readonly runId: string | undefined }
  | {
      readonly kind: "approval";
      readonly checkpoint: AgentCheckpoint | string;
      readonly decisions: ApprovalDecisions;
    }
  | { readonly kind: "journal"; readonly runId: string };

/** A run's first state: the system prompt and the user's message. @internal */
export function newRunState(runId: string, instructions: string, input: string): RunState {
  return {
    runId,
    messages: [
      { role: "system", content: instructions },
      { role: "user", content: input },
    ],
    iteration: 0,
    corrected: false,
    calls: [],
    ledger: emptyLedger(),
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    budget: emptyBudget(),
    stall: emptyStall(),
  };
}
