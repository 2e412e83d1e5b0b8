import { AgentFunction, AgentFunctionGroup } from "@needlework/core";
import { container } from "tsyringe";
import { describe, expect, it } from "vitest";
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
