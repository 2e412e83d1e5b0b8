import { describe, expect, it } from "vitest";
import { assertStatus, harness } from "../agent-fixtures.js";
import { formatRunReport } from "../../src/observability/run-report.js";

describe("a stalled run's reason", () => {
  it("names the repeated calls without their argument values (no secret reaches result.reason or the report)", async () => {
    const h = harness();
    const call = { name: "postNote", arguments: '{"note":"password=hunter2 AKIAIOSFODNN7EXAMPLE"}' };
    const { agent } = h.agent([
      { toolCalls: [call] },
      { toolCalls: [call] },
      { toolCalls: [call] },
      { toolCalls: [call] },
    ]);
    const result = await agent.run("loop");
    assertStatus(result, "stalled");
    expect(result.reason).toContain("postNote({note}) -> ok");
    const report = formatRunReport(result);
    for (const text of [result.reason, report]) {
      expect(text).not.toContain("hunter2");
      expect(text).not.toContain("AKIAIOSFODNN7EXAMPLE");
    }
  });
});
