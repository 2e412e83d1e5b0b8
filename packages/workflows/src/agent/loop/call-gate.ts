import type { AgentFunctionDescriptor, ToolOutcome } from "@needlework/core";
import { parsedArguments } from "../canonical-json.js";
import type { RoundCall } from "./round-call.js";
import type { RunState } from "./run-state.js";

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

/** What the model read of a tool message: the envelope's data, message and suggestion; else the whole. */
function readContent(content: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch {
    return content;
  }
  if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) && "status" in parsed) {
    const { data, message, suggestion } = parsed as Record<string, unknown>;
    return [data, message, suggestion].filter((v) => v !== undefined);
  }
  return parsed;
}

/**
 * The run's content view from its state: tool messages whose ids the run recorded as untrusted
 * (`state.untrusted`) are untrusted results; every other tool message is trusted. @internal
 */
export function runContentView(state: RunState): RunContentView {
  const untrustedIds = new Set(state.untrusted ?? []);
  const userInput: string[] = [];
  const trustedResults: unknown[] = [];
  const untrustedResults: unknown[] = [];
  const sources: string[] = [];
  for (const message of state.messages) {
    if (message.role === "system" || message.role === "user") userInput.push(message.content);
    else if (message.role === "tool") {
      if (untrustedIds.has(message.toolCallId)) {
        untrustedResults.push(readContent(message.content));
        if (!sources.includes(message.name)) sources.push(message.name);
      } else trustedResults.push(readContent(message.content));
    }
  }
  return { untrusted: untrustedIds.size > 0, untrustedSources: sources, userInput, trustedResults, untrustedResults };
}

/** The gates' verdicts on a round's calls, by call id (absent: run). A refusal wins over an approval, the first gate's over later ones. @internal */
export async function reviewRound(
  gates: readonly CallGate[] | undefined,
  state: RunState,
  calls: readonly RoundCall[],
): Promise<Map<string, CallVerdict>> {
  const verdicts = new Map<string, CallVerdict>();
  if (gates === undefined || gates.length === 0 || calls.length === 0) return verdicts;
  const request: CallGateRequest = {
    runId: state.runId,
    calls: calls.map((c) => ({
      callId: c.callId,
      tool: c.name,
      arguments: parsedArguments(c.arguments),
      descriptor: c.tool,
    })),
    context: runContentView(state),
  };
  for (const gate of gates) {
    const answers = await gate(request);
    calls.forEach((call, i) => {
      const answer = answers[i];
      if (answer === undefined || answer.action === "run") return;
      // A refusal outranks a request for approval: nobody can approve a call another gate refuses.
      if (!verdicts.has(call.callId) || answer.action === "deny") verdicts.set(call.callId, answer);
    });
  }
  return verdicts;
}

/** The outcomes of the calls a gate refused, by call id: the round answers them without running them. @internal */
export function refusals(verdicts: ReadonlyMap<string, CallVerdict>): Map<string, ToolOutcome> {
  const out = new Map<string, ToolOutcome>();
  for (const [callId, verdict] of verdicts) if (verdict.action === "deny") out.set(callId, verdict.outcome);
  return out;
}
