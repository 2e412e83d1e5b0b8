// `pnpm peer-audit` prints the CRM audit through the AI SDK, the OpenAI Agents SDK, LangChain and
// needlework. A small run here checks what a reader relies on: the last line's format, every
// framework run on the same plans, and needlework's silent-failure rate (the full run is N = 200).
import { describe, expect, it } from "vitest";
import { formatPeerAudit, FRAMEWORKS, runPeerAudit } from "../bench/src/peer-audit/audit.js";

describe("pnpm peer-audit", () => {
  it("runs every framework on the same fault plans and ends with the summary line", async () => {
    const report = await runPeerAudit(12, 7);
    for (const framework of FRAMEWORKS) {
      expect(report[framework].runs).toBe(12);
      expect(report[framework].writes).toBe(report.needlework.writes);
      expect(report[framework].meanToolResultChars).toBeGreaterThan(0);
    }
    expect(report.needlework.silentFailures).toBe(0);
    const last = formatPeerAudit(report).at(-1)!;
    expect(last).toMatch(
      /^peer audit: silent failures AI SDK \d+\.\d%, OpenAI Agents \d+\.\d%, LangChain \d+\.\d%, needlework 0\.0% \(12 runs each\)$/,
    );
  }, 120_000);
});
