// Cancelling a running run from the page, in Chromium (playwright-core), over a FileRunStore and over
// PostgreSQL: a run whose tool is blocked in flight shows a Cancel button; the confirmation names the
// call it aborts (tool and arguments); after it the page says what happened, and the run ends
// `cancelled` by server push within a lease period, its in-flight call aborted (`CANCELLED`), the
// action journaled with who and when. Waits on events only; the one bound on time is generous.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentStore } from "@needlework/durable";
import { PostgresStore } from "@needlework/postgres";
import { FileRunStore } from "@needlework/workflows";
import { chromium as playwright, type Browser } from "playwright-core";
import { describe, expect, it } from "vitest";
import { cannotRun } from "../../../test/support/cannot-run.js";
import { browserTestsRun, chromiumLaunchOptions, NO_CHROMIUM } from "../../../test/support/chromium.js";
import { DATABASE_URL, describePostgres } from "../../postgres/src/test-database.js";
import { startInspector } from "../src/index.js";
import { startBlockedRun } from "./support/blocked-run.js";

const { chromium, run: browserRuns } = browserTestsRun("inspector cancel browser test");
/** A renewal (when the holder reads the request) comes at a third of it. */
const LEASE_MS = 900;

async function cancelFromThePage(store: AgentStore): Promise<void> {
  if (!chromium) throw new Error("No Chromium on this CI machine: .ci/run installs the Debian package chromium.");
  const token = randomBytes(18).toString("base64url");
  const inspector = await startInspector({ store, port: 0, token, watchMs: 50 });
  let browser: Browser | undefined;
  const problems: string[] = [];
  try {
    const run = startBlockedRun(store, `cancel_page_${randomBytes(4).toString("hex")}`);
    await run.started;
    browser = await playwright.launch(chromiumLaunchOptions(chromium));
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    page.on("console", (message) => {
      if (message.type() === "error" || message.type() === "warning") problems.push(message.text());
    });
    page.on("pageerror", (error) => problems.push(error.message));
    await page.goto(inspector.url);
    await page.locator('body[data-route="#/runs"]').waitFor();
    await page.fill("#operator", "Ada");
    await page.dispatchEvent("#operator", "change");
    await page.evaluate(`location.hash = ${JSON.stringify(`#/runs/${run.runId}`)}`);
    await page.locator("#status.running").waitFor();
    await page.locator('.call.running[data-call-id="x1"]').waitFor();

    // One click opens a confirmation naming the call it aborts, whole; keeping the run changes nothing.
    await page.click("#cancel-run");
    await page.locator("#cancel-confirm[open]").waitFor();
    expect(await page.locator("#cancel-confirm-run").textContent()).toBe(run.runId);
    expect(await page.locator("#cancel-confirm-calls li").allTextContents()).toEqual([
      'export_ledger {"month":"2026-10"}',
    ]);
    await page.click("#cancel-keep");
    await page.locator("#cancel-confirm:not([open])").waitFor({ state: "attached" });
    expect(await store.journal.cancelRequested?.(run.runId)).toBeUndefined();

    await page.click("#cancel-run");
    await page.click("#cancel-confirmed");
    await page.locator("#notice:not([hidden])").waitFor();
    expect(await page.locator("#notice").textContent()).toMatch(/^Cancel requested: /);
    // The holder sees it at a renewal; the page hears the end by push.
    await page.locator("#status.cancelled").waitFor({ timeout: 30_000 });
    await page.locator('.call[data-call-id="x1"][data-error-code="CANCELLED"]').waitFor();
    expect(await page.locator("#act-cancel").isHidden()).toBe(true);
    expect(await page.locator("#run-reason").textContent()).toMatch(/cancelled by Ada \(token holder\) at /);
    const action = page.locator("#actions tr.action.cancel");
    await action.waitFor();
    expect(await action.locator("td").nth(1).textContent()).toBe("Ada (token holder)");

    const result = await run.result;
    expect(result.status).toBe("cancelled");
    expect(await run.aborted).toMatchObject({ name: "AbortError" });
    const asked = await store.journal.cancelRequested?.(run.runId);
    const ended = await store.journal.read(run.runId);
    expect(ended?.calls[0]?.outcome?.outcome).toMatchObject({ status: "cancelled", errorCode: "CANCELLED" });
    // Within a lease period: a generous bound (the holder reads it at a third of one).
    expect(Date.parse(ended!.end!.endedAt) - Date.parse(asked!.at)).toBeLessThan(LEASE_MS * 10);
    expect(problems).toEqual([]);
  } finally {
    await browser?.close();
    await inspector.close();
  }
}

if (browserRuns) {
  describe("cancelling a running run from the inspector's page, in headless Chromium", () => {
    it("over a FileRunStore", async () => {
      const directory = await mkdtemp(join(tmpdir(), "nw-inspector-cancel-"));
      try {
        await cancelFromThePage(new FileRunStore(directory, { leaseMs: LEASE_MS }));
      } finally {
        await rm(directory, { recursive: true, force: true });
      }
    }, 120_000);
  });
  describePostgres("cancelling a running run from the inspector's page over PostgreSQL, in headless Chromium", () => {
    it("over a PostgresStore", async () => {
      const schema = `ops_cancel_page_${randomBytes(6).toString("hex")}`;
      const store = new PostgresStore({ connectionString: DATABASE_URL, schema, leaseMs: LEASE_MS });
      try {
        await store.migrate();
        await cancelFromThePage(store);
      } finally {
        await store.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await store.close();
      }
    }, 120_000);
  });
} else cannotRun("cancelling a running run from the inspector's page in headless Chromium", NO_CHROMIUM);
