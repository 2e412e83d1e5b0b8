import type { InjectionToken } from "tsyringe";
import type { z } from "zod";
import type { ErrorMapRule } from "./error-mapping.js";
import type { ToolMiddleware } from "./middleware.js";

/** A zod object schema: the only kind of `input` a tool may declare. */
export type ToolInputSchema = z.ZodObject;

/** The tool that undoes a committed call, for all-or-nothing rounds. */
export type CompensateOption =
  | string
  | {
      /** The name of the undo tool. */
      readonly tool: string;
      /** Builds the undo tool's arguments from the forward call's input and result data. */
      readonly arguments?: (input: Record<string, unknown>, data: unknown) => Record<string, unknown>;
    };

/** How a round's tool calls are treated when some fail. */
export type RoundPolicy = "best-effort" | "all-or-nothing" | "fail-fast";

/**
 * Options of `@AgentFunction`.
 *
 * @example
 * ```ts
 * @AgentFunction({ description: "Looks up an order by ID.", input: z.object({ orderId: z.string() }) })
 * ```
 */
export interface AgentFunctionOptions<S extends ToolInputSchema = ToolInputSchema> {
  /** What the tool does, for the model. Required. */
  readonly description: string;
  /** A zod v4 object schema for the arguments; its JSON Schema is what the model sees. */
  readonly input: S;
  /** The tool name; defaults to the method name. */
  readonly name?: string;
  /** A zod schema the tool's successful data should match (documentation and definitions). */
  readonly output?: z.ZodType;
  /** Tool-scoped middleware, first entry outermost; runs inside agent-level middleware. */
  readonly middleware?: readonly ToolMiddleware[];
  /** Safe to run twice for one call: thrown transient errors are retried. Default `false`. */
  readonly idempotent?: boolean;
  /** The call waits for a human decision before it runs. Default `false`. */
  readonly requiresApproval?: boolean;
  /**
   * The tool only reads: it changes nothing in its environment. Adapters say so (MCP
   * `readOnlyHint: true`). Default `false`: a tool may change things.
   */
  readonly readOnly?: boolean;
  /** The tool that undoes this one in an all-or-nothing round. */
  readonly compensate?: CompensateOption;
  /** Tools that must succeed first in the same round. */
  readonly dependsOn?: readonly string[];
  /** Per-attempt timeout for this tool, in milliseconds (overrides the resilience default). */
  readonly timeoutMs?: number;
  /** Result budget for this tool, in tokens (overrides the truncation default). */
  readonly maxResultTokens?: number;
  /** Free-form labels. */
  readonly tags?: readonly string[];
  /** Boundary rules mapping this tool's thrown errors to model-facing codes. */
  readonly errors?: readonly ErrorMapRule[];
}

/** Options of `@AgentFunctionGroup`. */
export interface AgentFunctionGroupOptions {
  /** Group names the class belongs to; agents may pick tools by group. */
  readonly groups?: readonly string[];
  /** Round policy for this group's tools; overrides the agent's. */
  readonly roundPolicy?: RoundPolicy;
  /** `singleton` (default): one instance per container; `transient`: a fresh instance per call. */
  readonly lifetime?: "singleton" | "transient";
  /**
   * The constructor's dependencies, one tsyringe token per parameter in order, for compilers that
   * emit no `design:paramtypes` (standard decorators under tsx, esbuild, Vite, Bun). Optional with
   * `emitDecoratorMetadata`; when both exist, `inject` wins.
   */
  readonly inject?: readonly InjectionToken<unknown>[];
}

/** A class whose instances hold tool methods. */
export type ToolClass = abstract new (...args: never[]) => object;

/** Everything known about one declared tool. */
export interface AgentFunctionDescriptor {
  /** The tool name the model uses. */
  readonly name: string;
  readonly description: string;
  readonly input: ToolInputSchema;
  /** The class that declares the tool. */
  readonly target: ToolClass;
  /** The method's property key on the class. */
  readonly methodName: string;
  /** The options as given to `@AgentFunction`. */
  readonly options: AgentFunctionOptions;
  /** The group options of the declaring class (filled in when the class is decorated). */
  readonly group: AgentFunctionGroupOptions;
}
