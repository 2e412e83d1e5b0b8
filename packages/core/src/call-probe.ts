/*
 * A side-effect-free question an adapter can ask before it runs a call: would a gate of the
 * pipeline (the injection policy) run it, put it to a person, or refuse it? Adapters whose
 * framework has its own approval step (the AI SDK's `needsApproval`) ask it first, so the call is
 * put to a person through that step instead of being refused. Internal: shared by the packages.
 */
import type { AgentFunctionDescriptor, ToolMiddleware } from "./agent-function.options.js";

/** A call as a probe sees it. @internal */
export interface ProbedCall {
  readonly name: string;
  readonly tool: AgentFunctionDescriptor;
  readonly arguments: unknown;
  readonly runId: string;
}

/** What a gate would do with a call: run it, put it to a person (saying why), or refuse it. @internal */
export type ProbeVerdict =
  | { readonly action: "run" }
  | { readonly action: "approve"; readonly reason: string; readonly untrustedArguments?: readonly string[] }
  | { readonly action: "deny" };

/** A gate's probe. @internal */
export type CallProbe = (call: ProbedCall) => ProbeVerdict;

/** The property a gating middleware carries its probe under (a module symbol nothing else can set). @internal */
export const CALL_PROBE: unique symbol = Symbol("needlework.call-probe");

const probes = new WeakMap<object, readonly CallProbe[]>();

/** The probes the middleware of an invoker carry (`middleware[CALL_PROBE]`), registered on it. @internal */
export function registerCallProbes(invoker: object, middleware: readonly ToolMiddleware[]): void {
  const found = middleware
    .map((m) => (m as ToolMiddleware & { [CALL_PROBE]?: CallProbe })[CALL_PROBE])
    .filter((p): p is CallProbe => typeof p === "function");
  if (found.length > 0) probes.set(invoker, found);
}

/**
 * What the invoker's gates would do with a call, or `undefined` when it has none: a refusal
 * outranks a request for approval, which outranks running. @internal
 */
export function probeCall(invoker: object, call: ProbedCall): ProbeVerdict | undefined {
  const gates = probes.get(invoker);
  if (gates === undefined) return undefined;
  let verdict: ProbeVerdict = { action: "run" };
  for (const gate of gates) {
    const answer = gate(call);
    if (answer.action === "deny") return answer;
    if (answer.action === "approve" && verdict.action === "run") verdict = answer;
  }
  return verdict;
}

/** True when the invoker has a gate to probe. @internal */
export function hasCallProbe(invoker: object): boolean {
  return probes.has(invoker);
}
