import { checkClassDecoratorContext } from "@needlework/core/internal";
import type { Agent as AgentInstance } from "./agent.js";
import type { AgentDefinition } from "./agent.options.js";
import { resolveAgentDefinition } from "./agent-options.schema.js";

/**
 * A class declared with `@Agent(...)`: a marker that carries an agent definition. It is never
 * instantiated by the framework.
 *
 * @example
 * ```ts
 * const declared: DeclaredAgentClass = SupportAgent;
 * ```
 */
export type DeclaredAgentClass = abstract new (...args: never[]) => object;

/** Definitions recorded by `@Agent`, per class: metadata lives in a WeakMap, not on the class. */
const declarations = new WeakMap<object, AgentDefinition>();

/**
 * An agent built by `factory.createAgent(...)` or `createAgent(deps, options)`: it runs the
 * iterative tool loop. (`@Agent(...)`, the class decorator of the same name, declares one.)
 *
 * @example
 * ```ts
 * const agent: Agent = factory.createAgent(SupportAgent, { chatClient });
 * const result = await agent.run("Where is order ORD-1?");
 * ```
 */
export interface Agent extends AgentInstance {}

/**
 * Declares an agent on a class: its name, instructions, description, tools (`functionGroups`,
 * `functions`) and any other agent option except `chatClient`, which is supplied when the agent
 * is created (`factory.createAgent(SupportAgent, { chatClient })`, or once for the factory with
 * `usingChatClient(client)`). Options are checked when the class is decorated; errors name the class.
 *
 * @example
 * ```ts
 * @Agent({
 *   name: "support",
 *   description: "Answers order questions.",
 *   instructions: "You help customers with their orders.",
 *   functionGroups: ["orders"],
 *   resilience: { retry: { maxAttempts: 2 } },
 * })
 * class SupportAgent {}
 *
 * const factory = usingAgentFramework(container).addAgentFunctions(OrderTools).addAgents(SupportAgent).buildAgentFactory();
 * const agent = factory.createAgent(SupportAgent, { chatClient });
 * ```
 */
export function Agent(definition: AgentDefinition) {
  // Both decorator conventions: `(class)` (experimentalDecorators) and `(class, context)` (standard).
  return <C extends DeclaredAgentClass>(target: C, context?: ClassDecoratorContext<C>): void => {
    checkClassDecoratorContext(context, "@Agent");
    const where = `@Agent on ${target.name || "an anonymous class"}`;
    if (typeof definition === "object" && definition !== null && Object.hasOwn(definition, "chatClient")) {
      throw new TypeError(
        `${where}: \`chatClient\` is not part of a declaration; pass it when the agent is created (factory.createAgent(${target.name}, { chatClient })) or once with usingChatClient(client).`,
      );
    }
    resolveAgentDefinition(definition, where);
    declarations.set(target, Object.freeze({ ...definition }));
  };
}

/**
 * The definition `@Agent` recorded on a class (a subclass inherits its parent's unless it is
 * decorated itself), or `undefined`.
 *
 * @example
 * ```ts
 * declaredAgentOf(SupportAgent)?.name; // "support"
 * ```
 */
export function declaredAgentOf(target: DeclaredAgentClass): AgentDefinition | undefined {
  for (
    let c: object | null = target;
    c !== null && c !== Function.prototype;
    c = Object.getPrototypeOf(c) as object | null
  ) {
    const found = declarations.get(c);
    if (found) return found;
  }
  return undefined;
}

/**
 * The definition of a declared agent class; throws a clear error for a class without `@Agent`.
 * @internal
 */
export function requireDeclaredAgent(target: DeclaredAgentClass, where: string): AgentDefinition {
  const found = typeof target === "function" ? declaredAgentOf(target) : undefined;
  if (!found) {
    const name = typeof target === "function" ? target.name || "an anonymous class" : String(target);
    throw new TypeError(
      `${where}: ${name} is not a declared agent. Decorate it with @Agent({ name, instructions, ... }).`,
    );
  }
  return found;
}
