import type { ToolOutcome } from "@needlework/core";

/**
 * The fields of a run event that {@link toUiMessageStream} reads, as a structural shape (every
 * `AgentEvent` has them). It was the encoder's input type while `AgentEvent` lived in
 * @needlework/workflows; the encoder now takes `AgentEvent` from `@needlework/core/events` and still
 * accepts events of this shape, so code that built them keeps compiling.
 *
 * @deprecated Type events as `AgentEvent` (`import type { AgentEvent } from "@needlework/core/events"`).
 * This shape stays accepted until the next major version.
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
