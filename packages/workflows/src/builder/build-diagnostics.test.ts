import { AgentFunction, AgentFunctionGroup } from "@needlework/core";
import { container } from "tsyringe";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { usingAgentFramework } from "./agent-framework.builder.js";
import { BUILD_DIAGNOSTIC_IDS } from "./build-diagnostics.js";

@AgentFunctionGroup()
class ScheduleTools {
  @AgentFunction({
    description: "Books a slot.",
    input: z.object({ at: z.date().describe("When."), room: z.string().min(1).describe("Room name.") }),
  })
  book() {
    return "booked";
  }

  @AgentFunction({
    description: "Cancels a booking.",
    input: z.object({ bookingId: z.string().describe("Booking id.") }),
  })
  cancel() {
    return "cancelled";
  }
}

describe("NW009: a tool outside OpenAI's strict subset", () => {
  it("names the tool and every reason, as info, and leaves strict tools alone", () => {
    const factory = usingAgentFramework(container.createChildContainer())
      .addAgentFunctions(ScheduleTools)
      .buildAgentFactory({ strict: true });
    const nw009 = factory.diagnostics.filter((d) => d.id === "NW009");
    expect(nw009).toEqual([
      {
        id: "NW009",
        severity: "info",
        tool: "book",
        message:
          "Tool 'book' is sent to OpenAI without strict mode: '/at' has no type (z.date(), z.any() or z.unknown() give {}), which OpenAI strict mode does not accept; '/room' uses 'minLength', which is outside OpenAI's strict subset.",
      },
    ]);
    expect(BUILD_DIAGNOSTIC_IDS.NW009).toContain("strict subset");
  });
});

describe("plugins are found by what they offer, never by their name", () => {
  it("a renamed result middleware still sets the agents' style, and a renamed resilience still counts for NW001", async () => {
    const { toolResultPlugin } = await import("../tool-result/tool-result.plugin.js");
    const { createResiliencePlugin } = await import("../resilience/resilience.plugin.js");
    const results = { ...toolResultPlugin({ style: "needlr" }), name: "my-results" };
    const retries = { ...createResiliencePlugin(), name: "my-retries" };
    const factory = usingAgentFramework(container.createChildContainer())
      .addAgentFunctions(ScheduleTools)
      .usingPlugin(results)
      .usingPlugin(retries)
      .buildAgentFactory();
    expect(factory.diagnostics.map((d) => d.id)).toContain("NW001");
    const outcome = await factory.tools.invoke({ name: "cancel", arguments: { bookingId: "b1" } });
    expect(factory.formatOutcome(outcome)).not.toContain('"status"'); // needlr style, not the envelope
  });
});

describe("warnings are printed at buildAgentFactory(), once, and can be silenced", () => {
  const wrongOrder = () =>
    usingAgentFramework(container.createChildContainer())
      .addAgentFunctions(ScheduleTools)
      .usingToolResultMiddleware()
      .usingResilience()
      .usingResilience();

  it("prints each warning once on console.warn, naming its id and how to silence it; info is not printed", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const factory = wrongOrder().buildAgentFactory();
    const lines = warn.mock.calls.map(([line]) => String(line));
    expect(lines.filter((l) => l.includes("NW001"))).toHaveLength(1);
    expect(lines.filter((l) => l.includes("NW005"))).toHaveLength(1);
    expect(lines[0]).toMatch(/^needlework NW001 \(warning\): usingToolResultMiddleware\(\) is registered before/);
    expect(lines[0]).toContain("printDiagnostics: false");
    expect(lines.some((l) => l.includes("NW009"))).toBe(false); // info only
    expect(factory.diagnostics.map((d) => d.id)).toEqual(expect.arrayContaining(["NW001", "NW005", "NW009"]));
  });

  it("printDiagnostics: false prints nothing; a function receives each line", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    wrongOrder().buildAgentFactory({ printDiagnostics: false });
    expect(warn).not.toHaveBeenCalled();
    const lines: string[] = [];
    wrongOrder().buildAgentFactory({ printDiagnostics: (line) => lines.push(line) });
    expect(lines.map((l) => l.split(" ")[1])).toEqual(["NW001", "NW005"]);
    expect(warn).not.toHaveBeenCalled();
  });

  it("a correct composition prints nothing", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    @AgentFunctionGroup()
    class Clean {
      @AgentFunction({ description: "Pings.", input: z.object({ id: z.string().describe("Id.") }) })
      ping() {
        return "pong";
      }
    }
    usingAgentFramework(container.createChildContainer())
      .addAgentFunctions(Clean)
      .usingResilience()
      .usingToolResultMiddleware()
      .buildAgentFactory();
    expect(warn).not.toHaveBeenCalled();
  });
});
