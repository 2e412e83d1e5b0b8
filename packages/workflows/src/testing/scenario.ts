import { NeedleworkError, type ToolOutcomeStatus } from "@needlework/core";
import type { Agent } from "../agent/agent.js";
import type { AgentRunResult, AgentRunStatus, RunHealth, ToolCallRecord } from "@needlework/core/events";
import type { RunOptions } from "../agent/agent.options.js";
import { canonicalJson, parsedArguments } from "../agent/canonical-json.js";
import { type DeclaredAgentClass, declaredAgentOf } from "../agent/declared-agent.js";
import { ScriptedChatClient, type ScriptedStep } from "@needlework/core";
import type { AgentFactory, AgentOptions } from "../builder/agent-factory.js";

/**
 * One expected tool call. Only the fields given are compared; `arguments` must be equal (key order
 * and JSON text versus object do not matter).
 *
 * @example
 * ```ts
 * const call: ExpectedCall = { tool: "getOrderStatus", arguments: { orderId: "ORD-1" }, status: "ok" };
 * ```
 */
export interface ExpectedCall {
  readonly tool: string;
  readonly arguments?: unknown;
  readonly status?: ToolOutcomeStatus;
  readonly errorCode?: string;
  readonly attempts?: number;
  readonly notCalled?: boolean;
}

/**
 * What a scenario must end with. Every field is optional; what is not given is not checked.
 *
 * @example
 * ```ts
 * const expectations: ScenarioExpectations = { status: "completed", calls: [{ tool: "getOrderStatus", status: "ok" }], text: /shipped/ };
 * ```
 */
export interface ScenarioExpectations {
  readonly status?: AgentRunStatus;
  /** The final text: equal to a string, or matching a RegExp. */
  readonly text?: string | RegExp;
  /** `result.reason`: equal to a string, or matching a RegExp. */
  readonly reason?: string | RegExp;
  /** Exactly these calls, in `result.calls` order (the runtime's compensate calls included). */
  readonly calls?: readonly ExpectedCall[];
  /** Tools the model must not have called at all. */
  readonly neverCalled?: readonly string[];
  /** Fields of `result.health`. */
  readonly health?: Partial<RunHealth>;
  /** Every step of the script was played. Default `true`: a shorter run than scripted is a failure. */
  readonly scriptConsumed?: boolean;
}

/**
 * How a scenario gets its agent: a class declared with `@Agent`, the name of a registered agent,
 * or agent options (these three need `factory`), or a function building one over the scripted model.
 *
 * @example
 * ```ts
 * const agent: ScenarioAgent = (chatClient) => createAgent({ invoker }, { name: "a", instructions: "", chatClient });
 * ```
 */
export type ScenarioAgent = DeclaredAgentClass | string | AgentOptions | ((chatClient: ScriptedChatClient) => Agent);

/**
 * A scripted run of an agent and what it must end with.
 *
 * @example
 * ```ts
 * const scenario: AgentScenario = {
 *   name: "order lookup",
 *   factory, agent: SupportAgent, input: "Where is ORD-1?",
 *   script: [{ toolCalls: [{ name: "getOrderStatus", arguments: { orderId: "ORD-1" } }] }, { text: "ORD-1 has shipped." }],
 *   expect: { status: "completed", calls: [{ tool: "getOrderStatus", status: "ok" }] },
 * };
 * ```
 */
export interface AgentScenario {
  /** Names the scenario in failure messages. */
  readonly name?: string;
  readonly agent: ScenarioAgent;
  /** Builds `agent` when it is a declared class, a name or options. */
  readonly factory?: AgentFactory;
  /** The user's message. */
  readonly input: string;
  /** The model's turns (see `ScriptedChatClient`). */
  readonly script: readonly ScriptedStep[];
  readonly expect?: ScenarioExpectations;
  readonly runOptions?: RunOptions;
  /** Throw a {@link ScenarioFailedError} when an expectation fails. Default `true`; `false` only reports. */
  readonly throwOnFailure?: boolean;
}

/**
 * A call as the scenario saw it: the record, the arguments the model sent, and the reply it read.
 *
 * @example
 * ```ts
 * const lookup: ScenarioCall = report.calls[0]!;
 * console.log(lookup.tool, lookup.arguments, lookup.reply);
 * ```
 */
export interface ScenarioCall extends ToolCallRecord {
  /** Parsed when JSON text; `undefined` for the runtime's compensate calls. */
  readonly arguments: unknown;
  /** The tool message the model read (parsed JSON when it is JSON); `undefined` for compensate calls. */
  readonly reply: unknown;
}

/**
 * What {@link runScenario} returns.
 *
 * @example
 * ```ts
 * const report = await runScenario({ ...scenario, throwOnFailure: false });
 * if (!report.passed) console.log(report.problems);
 * ```
 */
export interface ScenarioReport {
  readonly result: AgentRunResult;
  /** The scripted model: `requests` holds what the agent asked. */
  readonly model: ScriptedChatClient;
  readonly calls: readonly ScenarioCall[];
  /** One line per failed expectation; empty when the scenario passed. */
  readonly problems: readonly string[];
  readonly passed: boolean;
}

/**
 * A scenario's expectations failed; the message lists every problem and the calls made.
 * `report` has the whole run. Code `SCENARIO_FAILED`.
 *
 * @example
 * ```ts
 * try { await runScenario(scenario); }
 * catch (e) { if (e instanceof ScenarioFailedError) console.log(e.report.result.messages); }
 * ```
 */
export class ScenarioFailedError extends NeedleworkError {
  // Named here, not by the bundler (which may emit `_ScenarioFailedError`): `name` and `isInstance` read it.
  static {
    Object.defineProperty(ScenarioFailedError, "name", { value: "ScenarioFailedError" });
  }
  constructor(
    message: string,
    readonly report: ScenarioReport,
  ) {
    super("SCENARIO_FAILED", message);
  }
}

const show = (value: unknown): string => {
  try {
    return value instanceof RegExp ? String(value) : (JSON.stringify(value) ?? String(value));
  } catch {
    return String(value);
  }
};

function sameArguments(expected: unknown, actual: unknown): boolean {
  try {
    return canonicalJson(parsedArguments(expected)) === canonicalJson(parsedArguments(actual));
  } catch {
    return false;
  }
}

function matches(expected: string | RegExp, actual: string | undefined): boolean {
  return typeof expected === "string" ? actual === expected : actual !== undefined && expected.test(actual);
}

function describeCall(call: ScenarioCall): string {
  const args = call.arguments === undefined ? "" : ` ${show(call.arguments)}`;
  return `${call.tool}${args} -> ${call.status}${call.errorCode ? `/${call.errorCode}` : ""} (${call.attempts} attempt${call.attempts === 1 ? "" : "s"})`;
}

function createScenarioAgent(scenario: AgentScenario, model: ScriptedChatClient): Agent {
  const { agent, factory } = scenario;
  if (typeof agent === "function" && declaredAgentOf(agent as DeclaredAgentClass) === undefined) {
    return (agent as (chatClient: ScriptedChatClient) => Agent)(model);
  }
  if (!factory)
    throw new TypeError(
      "runScenario: pass `factory` to build the agent from a declared class, a name or options (or give `agent` as (chatClient) => agent).",
    );
  if (typeof agent === "function" || typeof agent === "string")
    return factory.createAgent(agent as DeclaredAgentClass | string, { chatClient: model });
  return factory.createAgent({ ...agent, chatClient: model });
}

function scenarioCalls(result: AgentRunResult): ScenarioCall[] {
  const sent = new Map<string, unknown>();
  const replies = new Map<string, unknown>();
  for (const m of result.messages) {
    if (m.role === "assistant") for (const c of m.toolCalls ?? []) sent.set(c.id, parsedArguments(c.arguments));
    if (m.role === "tool") replies.set(m.toolCallId, parsedArguments(m.content));
  }
  return result.calls.map((record) => ({
    ...record,
    arguments: sent.get(record.callId),
    reply: record.compensationFor === undefined ? replies.get(record.callId) : undefined,
  }));
}

function check(expect: ScenarioExpectations, report: Omit<ScenarioReport, "problems" | "passed">): string[] {
  const { result, model, calls } = report;
  const problems: string[] = [];
  const reason = "reason" in result ? result.reason : undefined;
  if (expect.status !== undefined && result.status !== expect.status) {
    problems.push(`status: expected "${expect.status}", got "${result.status}"${reason ? ` (reason: ${reason})` : ""}`);
  }
  if (expect.text !== undefined && !matches(expect.text, result.text))
    problems.push(`text: expected ${show(expect.text)}, got ${show(result.text)}`);
  if (expect.reason !== undefined && !matches(expect.reason, reason))
    problems.push(`reason: expected ${show(expect.reason)}, got ${show(reason)}`);
  if (expect.calls !== undefined) {
    expect.calls.forEach((wanted, i) => {
      const actual = calls[i];
      if (!actual)
        return void problems.push(
          `calls[${i}]: expected ${show(wanted)}, but only ${calls.length} call${calls.length === 1 ? " was" : "s were"} made`,
        );
      const wrong: string[] = [];
      if (actual.tool !== wanted.tool) wrong.push(`tool "${actual.tool}"`);
      if ("arguments" in wanted && !sameArguments(wanted.arguments, actual.arguments))
        wrong.push(`arguments ${show(actual.arguments)}`);
      if (wanted.status !== undefined && actual.status !== wanted.status) wrong.push(`status "${actual.status}"`);
      if (wanted.errorCode !== undefined && actual.errorCode !== wanted.errorCode)
        wrong.push(`errorCode ${show(actual.errorCode)}`);
      if (wanted.attempts !== undefined && actual.attempts !== wanted.attempts)
        wrong.push(`attempts ${actual.attempts}`);
      if (wanted.notCalled !== undefined && actual.notCalled !== wanted.notCalled)
        wrong.push(`notCalled ${String(actual.notCalled)}`);
      if (wrong.length > 0) problems.push(`calls[${i}]: expected ${show(wanted)}, got ${wrong.join(", ")}`);
    });
    if (calls.length > expect.calls.length) {
      problems.push(
        `calls: expected ${expect.calls.length}, got ${calls.length}; extra: ${calls.slice(expect.calls.length).map(describeCall).join("; ")}`,
      );
    }
  }
  for (const tool of expect.neverCalled ?? []) {
    const made = calls.filter((c) => c.tool === tool && c.compensationFor === undefined);
    if (made.length > 0)
      problems.push(
        `neverCalled: '${tool}' was called ${made.length} time${made.length === 1 ? "" : "s"} (${made.map((c) => c.callId).join(", ")})`,
      );
  }
  for (const [key, value] of Object.entries(expect.health ?? {})) {
    const actual = result.health[key as keyof RunHealth];
    if (actual !== value) problems.push(`health.${key}: expected ${show(value)}, got ${show(actual)}`);
  }
  if ((expect.scriptConsumed ?? true) && model.remaining > 0) {
    problems.push(
      `script: ${model.remaining} of ${model.requests.length + model.remaining} steps were never played (the run ended "${result.status}" after ${model.requests.length} model turns)`,
    );
  }
  return problems;
}

/**
 * Runs an agent against a scripted model and checks how the run ended: status, text, the calls
 * made (tool, arguments, outcome), tools never called, health, and that the script was used up.
 * Framework-agnostic: it throws a {@link ScenarioFailedError} listing every mismatch (or, with
 * `throwOnFailure: false`, returns them in `problems`). A run that rejects (a hook error, a
 * `ScriptExhaustedError` when the agent asked for more turns than scripted) rejects as it is.
 *
 * @example
 * ```ts
 * await runScenario({
 *   factory, agent: SupportAgent, input: "Where is ORD-1?",
 *   script: [{ toolCalls: [{ name: "getOrderStatus", arguments: { orderId: "ORD-1" } }] }, { text: "ORD-1 has shipped." }],
 *   expect: { status: "completed", calls: [{ tool: "getOrderStatus", arguments: { orderId: "ORD-1" }, status: "ok" }], neverCalled: ["refund"] },
 * });
 * ```
 */
export async function runScenario(scenario: AgentScenario): Promise<ScenarioReport> {
  const model = new ScriptedChatClient(scenario.script);
  const agent = createScenarioAgent(scenario, model);
  const result = await agent.run(scenario.input, scenario.runOptions);
  const base = { result, model, calls: scenarioCalls(result) };
  const problems = check(scenario.expect ?? {}, base);
  const report: ScenarioReport = { ...base, problems, passed: problems.length === 0 };
  if (problems.length > 0 && scenario.throwOnFailure !== false) {
    const title = scenario.name === undefined ? "Scenario" : `Scenario "${scenario.name}"`;
    const made =
      base.calls.length === 0 ? "  (none)" : base.calls.map((c, i) => `  ${i + 1}. ${describeCall(c)}`).join("\n");
    throw new ScenarioFailedError(
      `${title} failed:\n${problems.map((p) => `  - ${p}`).join("\n")}\nCalls made:\n${made}\nStatus: ${result.status}; final text: ${show(result.text)}`,
      report,
    );
  }
  return report;
}
