import { container as rootContainer } from "tsyringe";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  AgentFunction,
  AgentFunctionGroup,
  agentFunctionRegistry,
  collectAgentFunctions,
  createToolInvoker,
  registerAgentFunctions,
  ToolRegistrationError,
  type ToolClass,
} from "./index.js";

const declared: ToolClass[] = [];
afterEach(() => {
  for (const c of declared.splice(0)) agentFunctionRegistry.delete(c);
});

const input = z.object({});

class Counter {
  private made = 0;
  next(): number {
    return ++this.made;
  }
}

function registrationError(fn: () => unknown): ToolRegistrationError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ToolRegistrationError);
    expect((error as ToolRegistrationError).code).toBe("TOOL_REGISTRATION_ERROR");
    return error as ToolRegistrationError;
  }
  throw new Error("expected a ToolRegistrationError");
}

describe("registerAgentFunctions", () => {
  it("registers a group as a singleton by default: one instance per container", async () => {
    const counter = new Counter();
    @AgentFunctionGroup()
    class SessionTools {
      readonly id = counter.next();
      @AgentFunction({ description: "Which instance answered.", input })
      whoami(): number {
        return this.id;
      }
    }
    declared.push(SessionTools);
    const container = rootContainer.createChildContainer();
    const tools = registerAgentFunctions(container, SessionTools);
    expect(tools.map((t) => t.name)).toEqual(["whoami"]);
    expect(container.resolve(SessionTools)).toBe(container.resolve(SessionTools));

    const invoker = createToolInvoker(rootContainer.createChildContainer(), { functions: [SessionTools] });
    const first = await invoker.invoke({ name: "whoami" });
    const second = await invoker.invoke({ name: "whoami" });
    expect(second.data).toBe(first.data);
  });

  it('creates a fresh instance per call for `lifetime: "transient"`', async () => {
    const counter = new Counter();
    @AgentFunctionGroup({ lifetime: "transient" })
    class RequestTools {
      readonly id = counter.next();
      @AgentFunction({ description: "Which instance answered.", input })
      whoami(): number {
        return this.id;
      }
    }
    declared.push(RequestTools);
    const container = rootContainer.createChildContainer();
    registerAgentFunctions(container, RequestTools);
    expect(container.resolve(RequestTools)).not.toBe(container.resolve(RequestTools));

    const invoker = createToolInvoker(rootContainer.createChildContainer(), { functions: [RequestTools] });
    const ids = [
      (await invoker.invoke({ name: "whoami" })).data,
      (await invoker.invoke({ name: "whoami" })).data,
      (await invoker.invoke({ name: "whoami" })).data,
    ];
    expect(new Set(ids).size).toBe(3);
  });

  it("injects constructor dependencies by class type", async () => {
    class Greeter {
      greet(name: string): string {
        return `hello ${name}`;
      }
    }
    @AgentFunctionGroup()
    class GreetingTools {
      constructor(private readonly greeter: Greeter) {}
      @AgentFunction({ description: "Greets.", input: z.object({ name: z.string() }) })
      greet({ name }: { name: string }): string {
        return this.greeter.greet(name);
      }
    }
    declared.push(GreetingTools);
    const outcome = await createToolInvoker(rootContainer.createChildContainer(), {
      functions: [GreetingTools],
    }).invoke({ name: "greet", arguments: { name: "Ada" } });
    expect(outcome).toMatchObject({ status: "ok", data: "hello Ada" });
  });

  it("keeps a registration the container already has (an instance you built yourself)", async () => {
    @AgentFunctionGroup()
    class ConfiguredTools {
      constructor(readonly label = "from container") {}
      @AgentFunction({ description: "Says its label.", input })
      label_(): string {
        return this.label;
      }
    }
    declared.push(ConfiguredTools);
    const container = rootContainer.createChildContainer();
    container.registerInstance(ConfiguredTools, new ConfiguredTools("hand-made"));
    const outcome = await createToolInvoker(container, { functions: [ConfiguredTools] }).invoke({ name: "label_" });
    expect(outcome.data).toBe("hand-made");
  });

  it("refuses two tools with one name across classes, naming both classes and methods", () => {
    @AgentFunctionGroup()
    class OrderTools {
      @AgentFunction({ name: "lookup", description: "Looks up an order.", input })
      findOrder(): void {}
    }
    @AgentFunctionGroup()
    class CustomerTools {
      @AgentFunction({ description: "Looks up a customer.", input })
      lookup(): void {}
    }
    declared.push(OrderTools, CustomerTools);
    const error = registrationError(() =>
      registerAgentFunctions(rootContainer.createChildContainer(), OrderTools, CustomerTools),
    );
    expect(error.message).toBe(
      "Two tools are named 'lookup': OrderTools.findOrder and CustomerTools.lookup. Give one a different `name` in @AgentFunction.",
    );
    expect(error.toolName).toBe("lookup");
    expect(() =>
      createToolInvoker(rootContainer.createChildContainer(), { functions: [OrderTools, CustomerTools] }),
    ).toThrow("Two tools are named 'lookup': OrderTools.findOrder and CustomerTools.lookup.");
  });

  it("registers a class listed twice once", () => {
    @AgentFunctionGroup()
    class OrderTools {
      @AgentFunction({ description: "Looks up an order.", input })
      lookup(): void {}
    }
    declared.push(OrderTools);
    expect(collectAgentFunctions([OrderTools, OrderTools]).map((t) => t.name)).toEqual(["lookup"]);
  });

  it("refuses a class without @AgentFunctionGroup with an error that says what to add", () => {
    class Plain {}
    expect(registrationError(() => registerAgentFunctions(rootContainer.createChildContainer(), Plain)).message).toBe(
      "Class Plain is not an agent function group: decorate it with @AgentFunctionGroup() and its tool methods with @AgentFunction({ description, input }).",
    );
    class HalfDone {
      @AgentFunction({ description: "Looks up.", input })
      lookup(): void {}
    }
    expect(
      registrationError(() => createToolInvoker(rootContainer.createChildContainer(), { functions: [HalfDone] }))
        .message,
    ).toBe(
      "Class HalfDone has @AgentFunction methods but no @AgentFunctionGroup. Add @AgentFunctionGroup() to the class so it is registered and injectable.",
    );
  });

  it("refuses a group with no tools, and a value that is not a class", () => {
    @AgentFunctionGroup()
    class Empty {}
    declared.push(Empty);
    expect(registrationError(() => collectAgentFunctions([Empty])).message).toBe(
      "Class Empty has @AgentFunctionGroup but no @AgentFunction methods: it offers no tools.",
    );
    expect(registrationError(() => collectAgentFunctions([new Counter() as unknown as ToolClass])).message).toBe(
      "Cannot register object as agent functions: pass the class itself (e.g. `addAgentFunctions(OrderTools)`).",
    );
  });
});

describe("constructor dependencies: `inject`, metadata, or a loud refusal", () => {
  class Repository {
    readonly kind: string = "real";
  }
  class FakeRepository extends Repository {
    override readonly kind = "fake";
  }

  /** A class decorated by hand, as a compiler without metadata would: no `design:paramtypes`. */
  function undecoratedGroup(options?: Parameters<typeof AgentFunctionGroup>[0]) {
    class Tools {
      constructor(readonly repository: Repository) {}
      lookup() {
        return this.repository.kind;
      }
    }
    AgentFunction({ description: "Looks up.", input: z.object({}) })(
      Tools.prototype,
      "lookup",
      Object.getOwnPropertyDescriptor(Tools.prototype, "lookup")!,
    );
    AgentFunctionGroup(options)(Tools);
    return Tools;
  }

  it("refuses a class with neither metadata nor `inject`, naming it and both fixes", () => {
    const Tools = undecoratedGroup();
    expect(Reflect.getMetadata("design:paramtypes", Tools)).toBeUndefined();
    const register = () => registerAgentFunctions(rootContainer.createChildContainer(), Tools);
    expect(register).toThrow(ToolRegistrationError);
    expect(register).toThrow(
      "Class Tools takes 1 constructor parameter(s), but nothing says what to inject: it has no `inject` option and no `design:paramtypes` metadata (tsx, esbuild, Vite and Bun emit none). Fix it either way: name the dependencies in order with @AgentFunctionGroup({ inject: [...] }) on Tools (one tsyringe token per constructor parameter, e.g. `inject: [OrderRepository]`), or compile with tsc or swc with `experimentalDecorators` and `emitDecoratorMetadata` enabled.",
    );
    expect(() => createToolInvoker(rootContainer.createChildContainer(), { functions: [Tools] })).toThrow(
      ToolRegistrationError,
    );
    agentFunctionRegistry.delete(Tools);
  });

  it("resolves through `inject` when no metadata exists", async () => {
    const Tools = undecoratedGroup({ inject: [Repository] });
    const outcome = await createToolInvoker(rootContainer.createChildContainer(), { functions: [Tools] }).invoke({
      name: "lookup",
    });
    expect(outcome).toMatchObject({ status: "ok", data: "real" });
    agentFunctionRegistry.delete(Tools);
  });

  it("lets `inject` win over compiler metadata", async () => {
    const FAKE = Symbol("fake repository");
    @AgentFunctionGroup({ inject: [FAKE] })
    class Tools {
      constructor(readonly repository: Repository) {}
      @AgentFunction({ description: "Looks up.", input: z.object({}) })
      lookup() {
        return this.repository.kind;
      }
    }
    // swc emitted `design:paramtypes` (tsyringe's own @inject tokens overwrite its entries in place).
    expect(Reflect.getMetadata("design:paramtypes", Tools)).toHaveLength(1);
    const child = rootContainer.createChildContainer();
    child.register(FAKE, { useValue: new FakeRepository() });
    expect(await createToolInvoker(child, { functions: [Tools] }).invoke({ name: "lookup" })).toMatchObject({
      status: "ok",
      data: "fake",
    });
    agentFunctionRegistry.delete(Tools);
  });

  it("refuses an `inject` list shorter than the constructor, or holding a non-token, when decorated", () => {
    class Two {
      constructor(
        readonly a: Repository,
        readonly b: Repository,
      ) {}
    }
    expect(() => AgentFunctionGroup({ inject: [Repository] })(Two)).toThrow(
      "@AgentFunctionGroup on Two: the constructor takes 2 parameter(s) but `inject` names 1.",
    );
    expect(() => AgentFunctionGroup({ inject: [Repository, undefined as never] })(Two)).toThrow(
      "`inject[1]` is undefined",
    );
    expect(agentFunctionRegistry.has(Two)).toBe(false);
  });
});
