import {
  type AgentFunctionDescriptor,
  createToolOutcome,
  isToolOutcome,
  isUntrustedOutcome,
  toJsonSafe,
  type ToolMiddleware,
  type ToolOutcome,
  toolEffects,
} from "@needlework/core";
import { CALL_PROBE, type CallProbe, enclosedRunReadUntrusted } from "@needlework/core/internal";
import { APPROVED_BY_PERSON, APPROVED_ITEM } from "@needlework/core/kit";
import { z } from "zod";
import { type CallGateRequest, type CallVerdict, GATE_ITEM, GATED_BY_LOOP } from "../agent/loop/call-gate.types.js";
import { parseOptions } from "../options/parse-options.js";
import type { AgentFrameworkPlugin } from "../plugin.js";
import { InstructionProvenance } from "./induced-calls.js";
import { type TrackedRun, TrackedRuns } from "./tracked-runs.js";
import { type EchoedResult, ValueProvenance, untrustedArguments } from "./untrusted-arguments.js";

/**
 * What happens to a call with effects (`effects: "internal"` or `"external"`, or undeclared) once
 * untrusted content entered the run: `approve` pauses the run for a person's decision; `deny`
 * answers `UNTRUSTED_CONTEXT`; `arguments` runs it when none of its argument values came from
 * untrusted content and asks for approval otherwise; `allow` runs it (the mark stays visible).
 *
 * @example
 * ```ts
 * const mode: AfterUntrusted = "arguments";
 * ```
 */
export type AfterUntrusted = "approve" | "deny" | "arguments" | "allow";

/**
 * Options of `usingInjectionPolicy()`.
 *
 * @example
 * ```ts
 * usingAgentFramework().addAgentFunctions(MailTools).usingInjectionPolicy({ afterUntrusted: "arguments" });
 * ```
 */
export interface InjectionPolicyOptions {
  /** What a call with effects needs once untrusted content entered the run. Default `"approve"`. */
  readonly afterUntrusted?: AfterUntrusted;
  /**
   * Runs whose content the middleware remembers, for calls made without an agent loop (MCP, AI
   * SDK tools), by `runId`. Past it, the least recently used clean run's content goes first; a run
   * that read untrusted content keeps its mark when its content goes (it stays gated, and under
   * `arguments` every argument counts as untrusted). Default 10 000.
   */
  readonly maxTrackedRuns?: number;
}

const optionsSchema = z.strictObject({
  afterUntrusted: z.enum(["approve", "deny", "arguments", "allow"]).optional(),
  maxTrackedRuns: z.int().min(1).max(10_000_000).optional(),
});

const UNTRUSTED_CONTEXT_MESSAGE =
  "Not called: text a third party wrote entered this conversation, and this action has effects, so the injection policy did not run it. Nothing was changed.";
const UNTRUSTED_CONTEXT_SUGGESTION =
  "Do not retry. Tell the user what you meant to do and why; they can approve it or do it themselves.";

/**
 * The outcome of a call the policy did not run: `UNTRUSTED_CONTEXT`, not retriable, with a fixed
 * text (never the untrusted content, never the arguments). `approvalRequired` marks a call that a
 * person could have approved had the caller a way to ask (an adapter without a pause). @internal
 */
export function untrustedContextOutcome(
  tool: string,
  callId: string,
  detail: { readonly approvalRequired?: boolean; readonly untrustedArguments?: readonly string[] } = {},
): ToolOutcome {
  return createToolOutcome({
    status: "error",
    errorCode: "UNTRUSTED_CONTEXT",
    retriable: false,
    message: UNTRUSTED_CONTEXT_MESSAGE,
    suggestion: UNTRUSTED_CONTEXT_SUGGESTION,
    metadata: {
      tool,
      callId,
      attempts: 0,
      latencyMs: 0,
      ...(detail.approvalRequired === true ? { approvalRequired: true } : {}),
      ...(detail.untrustedArguments === undefined ? {} : { untrustedArguments: [...detail.untrustedArguments] }),
    },
  });
}

const quoteList = (names: readonly string[]): string => names.map((n) => `'${n}'`).join(", ");

/** What `arguments` mode looks a call up in: value provenance and instruction provenance, made once per round. */
interface RunLookups {
  readonly values: ValueProvenance;
  readonly instructions: InstructionProvenance;
}

/** A call's arguments hold a value (a result of a call without any echoes nothing). */
const hasArguments = (args: unknown): boolean =>
  typeof args === "object" && args !== null ? Object.keys(args).length > 0 : args !== undefined;

/**
 * The lookups over one run's content. A trusted result of a call with arguments vouches for a
 * value only when its call's arguments did not hold it (an echo launders nothing).
 */
function lookupsOf(sources: {
  userInput: readonly unknown[];
  trusted: readonly { readonly result: unknown; readonly arguments: unknown }[];
  untrusted: readonly unknown[];
}): RunLookups {
  const plain = [...sources.userInput];
  const echoes: EchoedResult[] = [];
  for (const t of sources.trusted) {
    if (hasArguments(t.arguments)) echoes.push(t);
    else plain.push(t.result);
  }
  const trusted = [...sources.userInput, ...sources.trusted.map((t) => t.result)];
  return {
    values: new ValueProvenance({ trusted: plain, untrusted: sources.untrusted, echoes }),
    instructions: new InstructionProvenance({ trusted, untrusted: sources.untrusted }),
  };
}

/** The policy's verdict on one call, given what entered the run. */
function decide(
  mode: AfterUntrusted,
  call: { readonly tool: string; readonly callId: string; readonly arguments: unknown },
  descriptor: AgentFunctionDescriptor | undefined,
  sources: readonly string[],
  lookups: () => RunLookups | undefined,
): CallVerdict {
  // An unknown tool runs nothing (the invoker answers UNKNOWN_TOOL); a read-only one changes nothing.
  if (descriptor === undefined || mode === "allow") return { action: "run" };
  const effects = toolEffects(descriptor.options);
  if (effects === "none") return { action: "run" };
  if (mode === "deny") return { action: "deny", outcome: untrustedContextOutcome(call.tool, call.callId) };
  const why = `Untrusted content (from ${quoteList(sources)}) entered this run before '${call.tool}', a tool with ${effects} effects`;
  if (mode === "approve") return { action: "approve", reason: `${why}.` };
  const lookup = lookups();
  const flagged =
    lookup === undefined
      ? Object.keys(typeof call.arguments === "object" && call.arguments !== null ? call.arguments : {})
      : untrustedArguments(call.arguments, lookup.values);
  // Control flow: the values may all be the user's, yet the instruction to use them this way came
  // only from that content (an injected "delete the file the user named").
  const induced = lookup?.instructions.induced({
    tool: call.tool,
    description: descriptor.options.description,
    arguments: call.arguments,
  });
  if (flagged.length === 0 && induced !== true) return { action: "run" };
  const parts: string[] = [];
  if (flagged.length > 0)
    parts.push(
      flagged.length === 1
        ? `its argument ${quoteList(flagged)} came from that content`
        : `its arguments ${quoteList(flagged)} came from that content`,
    );
  if (induced === true)
    parts.push(
      "the instruction to make this call came only from that content (a sentence there names its action with one of its argument values; the user's input and trusted results have none)",
    );
  return { action: "approve", reason: `${why}, and ${parts.join(", and ")}.`, untrustedArguments: flagged };
}

/** What a value that passed the pipeline says to a reader (an outcome's data and texts, or the raw value). */
function readable(value: unknown): unknown {
  if (isToolOutcome(value)) {
    const { data, message, suggestion } = value;
    return toJsonSafe([data, message, suggestion].filter((v) => v !== undefined));
  }
  return toJsonSafe(value);
}

/**
 * The injection policy as a plugin (what `usingInjectionPolicy()` registers). In an agent's loop
 * it gates each round through `gateCalls`, on the run's content rebuilt from its recorded turns
 * (every start, resumes and journal replays included). Calls made without a loop (MCP servers, AI
 * SDK tools, `factory.tools.invoke`) pass its middleware instead: it remembers per `runId` what
 * was read and refuses, with `UNTRUSTED_CONTEXT`, the calls the policy would put to a person or
 * deny (no pause exists there; `metadata.approvalRequired` says a person could have approved).
 *
 * @example
 * ```ts
 * usingAgentFramework().addAgentFunctions(MailTools).usingPlugin(injectionPolicyPlugin({ afterUntrusted: "deny" }));
 * ```
 */
export function injectionPolicyPlugin(options: InjectionPolicyOptions = {}): AgentFrameworkPlugin {
  const parsed = parseOptions("usingInjectionPolicy", optionsSchema, options);
  const mode: AfterUntrusted = parsed.afterUntrusted ?? "approve";
  const maxRuns = parsed.maxTrackedRuns ?? 10_000;
  const runs = new TrackedRuns(maxRuns);
  const tracked = (runId: string): TrackedRun | undefined => runs.get(runId);
  const remember = (runId: string, tool: string, untrusted: boolean, value: unknown, args: unknown): void =>
    runs.remember(runId, tool, untrusted, readable(value), toJsonSafe(args));

  const lookupsOfRun = (run: TrackedRun) => () =>
    run.overflow ? undefined : lookupsOf({ userInput: [], trusted: run.trusted, untrusted: run.untrustedResults });

  // What the middleware would do with a call, without running it: adapters with an approval step
  // of their own (the AI SDK's needsApproval) ask first and put the call to a person there.
  const probe: CallProbe = (call) => {
    const run = tracked(call.runId);
    if (run?.untrusted !== true) return { action: "run" };
    const request = { tool: call.name, callId: "", arguments: call.arguments };
    const verdict = decide(mode, request, call.tool, run.sources, lookupsOfRun(run));
    return verdict.action === "deny" ? { action: "deny" } : verdict;
  };

  const middleware: ToolMiddleware = async (call, next) => {
    // The agent loop gated this call already (and may have had it approved): nothing more to decide.
    if (call.items.get(GATE_ITEM) === GATED_BY_LOOP) return next();
    // A person approved this very call through the adapter (MCP elicitation): it runs.
    const approved = call.items.get(APPROVED_ITEM) === APPROVED_BY_PERSON;
    const run = tracked(call.runId);
    if (run?.untrusted === true && !approved) {
      const request = { tool: call.name, callId: call.callId, arguments: call.arguments };
      const verdict = decide(mode, request, call.tool, run.sources, lookupsOfRun(run));
      if (verdict.action === "deny") return verdict.outcome;
      if (verdict.action === "approve")
        return untrustedContextOutcome(call.name, call.callId, {
          approvalRequired: true,
          ...(verdict.untrustedArguments === undefined ? {} : { untrustedArguments: verdict.untrustedArguments }),
        });
    }
    const value = await next();
    const untrusted =
      call.tool.options.reads === "untrusted" ||
      (isToolOutcome(value) && isUntrustedOutcome(value)) ||
      enclosedRunReadUntrusted(); // a sub-agent run inside this call read untrusted content
    remember(call.runId, call.name, untrusted, value, call.arguments);
    return value;
  };

  Object.defineProperty(middleware, CALL_PROBE, { value: probe });

  return {
    name: "injection-policy",
    describe: () => `injection-policy(afterUntrusted: ${mode})`,
    gateCalls(request: CallGateRequest): CallVerdict[] {
      const { context } = request;
      if (!context.untrusted || mode === "allow") return request.calls.map(() => ({ action: "run" }));
      let lookup: RunLookups | undefined;
      const lookups = () =>
        (lookup ??= lookupsOf({
          userInput: context.userInput,
          trusted: context.trustedResults.map((result, i) => ({
            result,
            arguments: context.trustedResultArguments?.[i],
          })),
          untrusted: context.untrustedResults,
        }));
      return request.calls.map((call) => decide(mode, call, call.descriptor, context.untrustedSources, lookups));
    },
    createMiddleware: () => middleware,
  };
}
