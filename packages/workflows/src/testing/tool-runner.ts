import {
  createToolInvoker,
  type InvokeOptions,
  type ToolClass,
  type ToolInvoker,
  type ToolMiddleware,
  type ToolOutcome,
} from "@needlework/core";
import { container as rootContainer, type DependencyContainer, type InjectionToken } from "tsyringe";
import type { AgentFactory } from "../builder/agent-factory.js";
import { toolResultMiddleware } from "../tool-result/index.js";

/**
 * The pipeline a {@link ToolRunner} invokes tools through:
 * - `"minimal"` (default): only the tool-result middleware, so a throw becomes the `error` outcome
 *   the model would read, as in production with `usingToolResultMiddleware()`;
 * - `"raw"`: no middleware at all, so a tool exception rejects `invoke` (to assert on the error itself);
 * - a list of middleware (first entry outermost), e.g. `[toolResultMiddleware(), chaos(...)]`;
 * - a built factory (or any `ToolInvoker`): its whole pipeline; the tool classes must be among its tools.
 *
 * @example
 * ```ts
 * const pipeline: ToolRunnerPipeline = [toolResultMiddleware({ style: "needlr" })];
 * ```
 */
export type ToolRunnerPipeline = "minimal" | "raw" | readonly ToolMiddleware[] | AgentFactory | ToolInvoker;

/**
 * Options of {@link createToolRunner} and {@link invokeTool}.
 *
 * @example
 * ```ts
 * const options: ToolRunnerOptions = { services: [[OrderRepository, fakeOrders]] };
 * ```
 */
export interface ToolRunnerOptions {
  /** Values for the tools' constructor dependencies, registered in a child container: `[token, value]` pairs. */
  readonly services?: readonly (readonly [InjectionToken<unknown>, unknown])[];
  /** The container the child is made from. Default: tsyringe's root container. */
  readonly container?: DependencyContainer;
  /** Default `"minimal"`. */
  readonly pipeline?: ToolRunnerPipeline;
}

/**
 * Invokes tools of the given classes, as an agent would, and returns their outcomes.
 *
 * @example
 * ```ts
 * const runner = createToolRunner(OrderTools, { services: [[OrderRepository, fakeOrders]] });
 * const outcome = await runner.invoke("getOrderStatus", { orderId: "ORD-1" });
 * ```
 */
export interface ToolRunner {
  /** The invoker behind the runner (definitions, get, invoke). */
  readonly invoker: ToolInvoker;
  /** Invokes `name` with `args` (an object or a JSON string, as a model sends it). */
  invoke(name: string, args?: unknown, options?: InvokeOptions): Promise<ToolOutcome>;
}

const isInvoker = (value: unknown): value is ToolInvoker =>
  typeof (value as ToolInvoker | undefined)?.invoke === "function";

/**
 * Builds a {@link ToolRunner} over tool classes: a fresh child container with `services`
 * registered, and the chosen pipeline.
 *
 * @example
 * ```ts
 * const runner = createToolRunner([OrderTools, CrmTools], { services: [[OrderRepository, fakeOrders]], pipeline: "raw" });
 * await expect(runner.invoke("getOrderStatus", { orderId: "" })).rejects.toThrow(RangeError);
 * ```
 */
export function createToolRunner(tools: ToolClass | readonly ToolClass[], options: ToolRunnerOptions = {}): ToolRunner {
  const classes: readonly ToolClass[] = typeof tools === "function" ? [tools] : tools;
  const pipeline = options.pipeline ?? "minimal";
  let invoker: ToolInvoker;
  if (pipeline === "minimal" || pipeline === "raw" || Array.isArray(pipeline)) {
    const child = (options.container ?? rootContainer).createChildContainer();
    for (const [token, value] of options.services ?? []) child.register(token, { useValue: value });
    const middleware =
      pipeline === "minimal"
        ? [toolResultMiddleware()]
        : pipeline === "raw"
          ? []
          : (pipeline as readonly ToolMiddleware[]);
    invoker = createToolInvoker(child, { functions: classes, middleware });
  } else {
    const given = isInvoker(pipeline) ? pipeline : (pipeline as AgentFactory).tools;
    if (!isInvoker(given))
      throw new TypeError(
        'createToolRunner: `pipeline` must be "minimal", "raw", a list of middleware, a built factory or a ToolInvoker.',
      );
    if (options.services !== undefined || options.container !== undefined) {
      throw new TypeError(
        "createToolRunner: `services` and `container` apply to the minimal or raw pipelines; a given factory resolves tools from its own container.",
      );
    }
    const missing = classes.filter((c) => !given.tools.some((t) => t.target === c));
    if (missing.length > 0)
      throw new TypeError(
        `createToolRunner: the given pipeline does not offer the tools of ${missing.map((c) => c.name).join(", ")}; add the class to the factory (addAgentFunctions).`,
      );
    invoker = given;
  }
  const own = new Set(invoker.tools.filter((t) => classes.includes(t.target)).map((t) => t.name));
  return {
    invoker,
    async invoke(name, args = {}, invokeOptions) {
      if (!own.has(name)) {
        throw new TypeError(
          `createToolRunner: '${name}' is not a tool of ${classes.map((c) => c.name).join(", ")} (tools: ${[...own].join(", ") || "none"}).`,
        );
      }
      return invoker.invoke({ name, arguments: args }, invokeOptions);
    },
  };
}

/**
 * Invokes one tool of a class with `args` through a minimal (or the given) pipeline and returns its
 * outcome: the one-liner for unit tests of your own tools.
 *
 * @example
 * ```ts
 * const outcome = await invokeTool(OrderTools, "getOrderStatus", { orderId: "nope" }, { services: [[OrderRepository, fakeOrders]] });
 * expect(outcome).toMatchObject({ status: "error", errorCode: "ORDER_NOT_FOUND" });
 * ```
 */
export function invokeTool(
  tool: ToolClass,
  name: string,
  args: unknown = {},
  options: ToolRunnerOptions & InvokeOptions = {},
): Promise<ToolOutcome> {
  const { signal, runId, items, ...runnerOptions } = options;
  const invokeOptions: InvokeOptions = {
    ...(signal ? { signal } : {}),
    ...(runId ? { runId } : {}),
    ...(items ? { items } : {}),
  };
  return createToolRunner(tool, runnerOptions).invoke(name, args, invokeOptions);
}
