import "reflect-metadata";
import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { chromium as playwright } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLiveRun } from "./live-run-agent.js";
import { cannotRun } from "../../test/support/cannot-run.js";
import { browserTestsRun, launchChromium, NO_CHROMIUM } from "../../test/support/chromium.js";
import { startLiveRunServer } from "./server.js";

const FULL_SPEED = { wordDelayMs: 0, toolDelayMs: 0, retryDelayMs: 0 };
const OUTPUT = fileURLToPath(new URL("./test-output/", import.meta.url));
describe("the live run's agent", () => {
  it("streams the CRM sync: a refused write with its code, a retried one, a correction, then an honest answer", async () => {
    const { agent, input } = createLiveRun(FULL_SPEED);
    const stream = agent.stream(input);
    const events = [];
    for await (const event of stream) events.push(event);
    const result = await stream.result;
    expect(result.status).toBe("completed_with_failures");
    expect(events.find((e) => e.type === "tool-result" && e.outcome.status === "error")).toMatchObject({
      callId: "t1-w1",
      outcome: { errorCode: "FORBIDDEN" },
    });
    expect(events.find((e) => e.type === "tool-retry")).toMatchObject({ callId: "t1-w2", errorCode: "UPSTREAM_ERROR" });
    expect(events.some((e) => e.type === "correction")).toBe(true);
    expect(result.text).toMatch(/failed with FORBIDDEN/);
  });
});

const { chromium: chromiumPath, run: browserRuns } = browserTestsRun("live-run browser test");

/** `describe` where browser tests run; otherwise one test in its place that says why ({@link cannotRun}). */
function describeInBrowser(name: string, body: () => void): void {
  if (browserRuns) describe(name, body);
  else cannotRun(name, NO_CHROMIUM);
}

describeInBrowser("the live run page in headless Chromium", () => {
  let server: Awaited<ReturnType<typeof startLiveRunServer>>;
  beforeAll(async () => {
    server = await startLiveRunServer({ port: 0, pace: FULL_SPEED });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("shows each call turning ok, retried or failed with its code, the correction, and the final answer", {
    timeout: 120_000,
  }, async () => {
    if (!chromiumPath)
      throw new Error("No Chromium on this CI machine: .ci/run installs the Debian package chromium before the tests.");
    const browser = await launchChromium(playwright, chromiumPath);
    try {
      const page = await browser.newPage({ viewport: { width: 1100, height: 1400 } });
      await page.goto(server.url);
      await page.locator("#final-status[data-status]").waitFor({ timeout: 60_000 });
      expect(await page.locator("#final-status").textContent()).toBe("completed_with_failures");
      const failed = page.locator('.call.error[data-call-id="t1-w1"]');
      expect(await failed.getAttribute("data-error-code")).toBe("FORBIDDEN");
      expect(await failed.locator(".state").textContent()).toContain("FORBIDDEN");
      const retried = page.locator('.call.retried[data-call-id="t1-w2"]');
      expect(await retried.locator(".state").textContent()).toBe("ok after 1 retry");
      expect(await retried.locator(".detail").textContent()).toContain("UPSTREAM_ERROR");
      expect(await page.locator(".call.ok").count()).toBe(4);
      expect(await page.locator(".note.health").textContent()).toContain("1 failed");
      expect(await page.locator(".note.correction").textContent()).toContain("claims success");
      const answer = await page.locator("#final-answer").textContent();
      expect(answer).toMatch(/^The sync is not complete: the HubSpot update contact for .+ failed with FORBIDDEN/);
      // The last turn's streamed text is the answer, written into the page delta by delta.
      expect(await page.locator('.turn[data-turn="3"] .text').textContent()).toBe(answer);
      mkdirSync(OUTPUT, { recursive: true });
      await page.screenshot({ path: `${OUTPUT}live-run.png`, fullPage: true });
    } finally {
      await browser.close();
    }
  });
});
