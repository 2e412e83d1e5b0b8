import type { ToolOutcome } from "@needlework/core";
import { parsedArguments } from "../canonical-json.js";
import type { RoundCall } from "./round-call.js";
import type { RunState } from "./run-state.js";
import type { CallGate, CallGateRequest, CallVerdict, RunContentView } from "./call-gate.types.js";

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
  const trustedResultArguments: unknown[] = [];
  const sources: string[] = [];
  const argumentsOf = new Map<string, unknown>();
  for (const message of state.messages) {
    if (message.role === "assistant")
      for (const call of message.toolCalls ?? []) argumentsOf.set(call.id, parsedArguments(call.arguments));
    // The runtime's own user messages (run_health, corrections, budget notes: they carry a `kind`)
    // are not the user's words: their counts and names must not vouch for a value.
    if (message.role === "system" || (message.role === "user" && message.kind === undefined))
      userInput.push(message.content);
    else if (message.role === "tool") {
      if (untrustedIds.has(message.toolCallId)) {
        untrustedResults.push(readContent(message.content));
        if (!sources.includes(message.name)) sources.push(message.name);
      } else {
        trustedResults.push(readContent(message.content));
        trustedResultArguments.push(argumentsOf.get(message.toolCallId));
      }
    }
  }
  return {
    untrusted: untrustedIds.size > 0,
    untrustedSources: sources,
    userInput,
    trustedResults,
    trustedResultArguments,
    untrustedResults,
  };
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
