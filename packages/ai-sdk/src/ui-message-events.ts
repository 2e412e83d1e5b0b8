import type { ToolOutcome } from "@needlework/core";

/**
 * A run event as {@link toUiMessageStream} reads it: the fields of `@needlework/workflows`' `AgentEvent`
 * the encoder uses, stated here so this package depends on core alone (an `AgentRunStream` is an
 * `AsyncIterable` of events of this shape; the ai-sdk tests hold the two assignable).
 *
 * @example
 * ```ts
 * const start: UiMessageSourceEvent = { type: "run-start", runId: "run_1" };
 * ```
 */
export type UiMessageSourceEvent =
  | { readonly type: "run-start"; readonly runId: string }
  | { readonly type: "turn-start" }
  | { readonly type: "text-delta"; readonly turn: number; readonly delta: string }
  | {
      readonly type: "tool-call";
      readonly callId: string;
      readonly tool: string;
      readonly arguments: string | Readonly<Record<string, unknown>>;
    }
  | { readonly type: "tool-result"; readonly callId: string; readonly outcome: ToolOutcome }
  /** Sent whole (less `type`) as a `data-<type>` part. */
  | { readonly type: "tool-retry" | "run-health" | "correction" }
  | {
      readonly type: "approval-required";
      /** Only its `runId` is sent: the signed checkpoint stays on the server. */
      readonly checkpoint: { readonly runId: string };
      readonly pending: readonly {
        readonly callId: string;
        readonly tool: string;
        readonly arguments: string | Readonly<Record<string, unknown>>;
      }[];
    }
  | { readonly type: "turn-end" }
  | {
      readonly type: "run-end";
      /** Only `{ runId, status, health, usage }` is sent (never the messages or a checkpoint). */
      readonly result: {
        readonly runId: string;
        readonly status: string;
        readonly health: unknown;
        readonly usage: unknown;
      };
    };
