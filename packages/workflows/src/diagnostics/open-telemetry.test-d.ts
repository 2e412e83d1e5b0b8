// `@needlework/otel` states what it reads of a run with its own structural types and imports nothing
// of workflows: these checks hold workflows' types to them, so a change on either side that breaks
// the fit fails the type check here.
import {
  type OpenTelemetryPlugin,
  openTelemetry,
  type TracedPipeline,
  type TracedRun,
  type TracedRunEvent,
  type TracedRunResult,
  type TracedRunStart,
} from "@needlework/otel";
import { describe, expectTypeOf, it } from "vitest";
import type { AgentEvent, AgentRunResult } from "@needlework/core/events";
import type { AgentFrameworkBuilder } from "../builder/agent-framework.builder.js";
import type { AgentFrameworkPlugin, PluginContext, RunInfo, RunObserved } from "../plugin.js";

describe("@needlework/otel's input contract, against workflows' types", () => {
  it("every AgentEvent, run result, run start and pipeline fits what the span code reads", () => {
    expectTypeOf<AgentEvent>().toExtend<TracedRunEvent>();
    expectTypeOf<AgentRunResult>().toExtend<TracedRunResult>();
    expectTypeOf<RunInfo>().toExtend<TracedRunStart>();
    expectTypeOf<RunObserved>().toExtend<TracedRun>();
    expectTypeOf<PluginContext>().toExtend<TracedPipeline>();
  });

  it("openTelemetry({ tracer }) is a plugin usingPlugin accepts, with no workflows type in its own", () => {
    expectTypeOf<OpenTelemetryPlugin>().toExtend<AgentFrameworkPlugin>();
    expectTypeOf<AgentFrameworkBuilder["usingPlugin"]>().toBeCallableWith(openTelemetry({ tracer: "global" }));
    const wrapped = ({} as OpenTelemetryPlugin).wrapRun({} as RunInfo, async () => ({}) as AgentRunResult);
    expectTypeOf(wrapped).toEqualTypeOf<Promise<AgentRunResult>>();
  });
});
