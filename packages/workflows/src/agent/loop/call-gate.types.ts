/*
 * The call-gate contract (plugin.ts's `gateCalls`): types and the loop's marker only, so the
 * plugin contract, the run state and the agent options can name them without an import cycle.
 */
import type { AgentFunctionDescriptor, ToolOutcome } from "@needlework/core";

/**
 * What entered a run's context so far, derived from its recorded messages and outcomes (so a
 * checkpoint, a journal replay and a live run all see the same). Plugins that gate calls read it.
 *
 * @example
 * ```ts
 * const gate = ({ context }: CallGateRequest) => context.untrusted;
 * ```
 */
export interface RunContentView {
  /** Untrusted content (an outcome marked `provenance: "untrusted"`) entered the run's context. */
  readonly untrusted: boolean;
  /** The tools whose untrusted results the model read, in order, each once. */
  readonly untrustedSources: readonly string[];
  /** What the developer and the user wrote: the instructions and every user message. */
  readonly userInput: readonly string[];
  /** Trusted tool results, as the model read them (the envelope's data, message and suggestion). */
  readonly trustedResults: readonly unknown[];
  /**
   * The arguments of the call each trusted result answered, in the order of `trustedResults`
   * (`undefined` when unknown): a value a result echoes from its own call's arguments vouches for
   * nothing, so an untrusted value laundered through a tool that echoes it stays untrusted.
   */
  readonly trustedResultArguments?: readonly unknown[];
  /** Untrusted tool results, as the model read them. */
  readonly untrustedResults: readonly unknown[];
}

/**
 * One call of a round, as a gate sees it.
 *
 * @example
 * ```ts
 * const effectful = (call: GatedCall) => call.descriptor?.options.effects !== "none";
 * ```
 */
export interface GatedCall {
  readonly callId: string;
  readonly tool: string;
  /** Parsed when the model sent JSON text. */
  readonly arguments: unknown;
  /** The tool, when it exists. */
  readonly descriptor: AgentFunctionDescriptor | undefined;
}

/**
 * What a plugin's `gateCalls` is asked: a round's calls, before any of them runs, and the run's content.
 *
 * @example
 * ```ts
 * const verdicts = (request: CallGateRequest) => request.calls.map(() => ({ action: "run" }) as const);
 * ```
 */
export interface CallGateRequest {
  readonly runId: string;
  readonly calls: readonly GatedCall[];
  readonly context: RunContentView;
}

/**
 * A gate's verdict on one call: run it, pause the run for a person's approval (saying why, and
 * which arguments came from untrusted content), or answer it with `outcome` without running it.
 *
 * @example
 * ```ts
 * const verdict: CallVerdict = { action: "approve", reason: "Untrusted content entered the run.", untrustedArguments: ["iban"] };
 * ```
 */
export type CallVerdict =
  | { readonly action: "run" }
  | { readonly action: "approve"; readonly reason: string; readonly untrustedArguments?: readonly string[] }
  | { readonly action: "deny"; readonly outcome: ToolOutcome };

/** A plugin's call gate (see `AgentFrameworkPlugin.gateCalls`). */
export type CallGate = (request: CallGateRequest) => readonly CallVerdict[] | Promise<readonly CallVerdict[]>;

/**
 * The item the loop hands every call it has gated (run, approved): a gate's middleware, which
 * guards the calls of adapters without a loop, lets such a call through. A module symbol, so
 * nothing outside this package can forge it. @internal
 */
export const GATED_BY_LOOP: unique symbol = Symbol("needlework.gated-by-loop");

/** The `items` key the loop sets to {@link GATED_BY_LOOP}. @internal */
export const GATE_ITEM = "needlework.callGate";
