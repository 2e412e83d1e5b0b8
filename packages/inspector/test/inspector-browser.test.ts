// What a user does: runs in PostgreSQL, `needlework-inspector --database-url ...`, the printed URL
// opened in a real browser (Debian's Chromium through playwright-core). The list, a failed run's
// timeline, a paused run's pending tool, hostile tool data shown as text, a run that finishes while
// watched, a dead letter acknowledged; no console errors; screenshots for docs/inspector.md.
import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { PostgresStore } from "@needlework/postgres";
import { chromium as playwright, type Browser, type Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { DATABASE_URL, describePostgres } from "../../postgres/src/test-database.js";
import { cannotRun } from "../../../test/support/cannot-run.js";
import { browserTestsRun, launchChromium, NO_CHROMIUM } from "../../../test/support/chromium.js";
import { endProcessGroup, spawnInGroup } from "../../../test/support/process-group.js";
import { type WrittenRuns, writeRuns } from "./runs.js";

const CLI = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
const OUTPUT = fileURLToPath(new URL("../test-output/", import.meta.url));
const { chromium, run: browserRuns } = browserTestsRun("inspector browser test");

/** Starts the bin as a user would and resolves with the URL it prints. */
function startBin(args: readonly string[]): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawnInGroup(process.execPath, [CLI, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    const onData = (chunk: Buffer) => {
      output += chunk.toString("utf8");
      const url = /open (http:\/\/\S+)/.exec(output)?.[1];
      if (url) resolve({ child, url });
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.once("exit", (code) => reject(new Error(`needlework-inspector exited ${code}: ${output}`)));
  });
}

if (browserRuns)
  describePostgres("needlework-inspector over PostgreSQL, in headless Chromium", () => {
    const schema = `nw_inspector_${randomBytes(6).toString("hex")}`;
    let store: PostgresStore;
    let runs: WrittenRuns;
    let bin: ChildProcess | undefined;
    let browser: Browser;
    let page: Page;
    const problems: string[] = [];

    beforeAll(async () => {
      if (!existsSync(CLI))
        throw new Error("packages/inspector is not built: run `pnpm build` first (`pnpm test` does).");
      if (!chromium) throw new Error("No Chromium on this CI machine: .ci/run installs the Debian package chromium.");
      store = new PostgresStore({ connectionString: DATABASE_URL, schema });
      await store.migrate();
      runs = await writeRuns(store);
      const started = await startBin(["--database-url", DATABASE_URL, "--schema", schema, "--port", "0"]);
      bin = started.child;
      browser = await launchChromium(playwright, chromium);
      page = await browser.newPage({ viewport: { width: 1100, height: 1200 } });
      page.on("console", (message) => {
        if (message.type() === "error" || message.type() === "warning") problems.push(message.text());
      });
      page.on("pageerror", (error) => problems.push(error.message));
      page.on("dialog", (dialog) => {
        problems.push(`dialog: ${dialog.message()}`);
        void dialog.dismiss();
      });
      await page.goto(started.url);
      mkdirSync(OUTPUT, { recursive: true });
    }, 120_000);

    /** Goes to one of the page's addresses and waits until the page has drawn it. */
    async function open(hash: string): Promise<void> {
      await page.goto(`${page.url().split("#")[0]}${hash}`);
      await drawn(hash);
    }
    const drawn = (hash: string) => page.locator(`body[data-route="${hash}"]`).waitFor();

    afterAll(async () => {
      await browser?.close();
      if (bin) await endProcessGroup(bin);
      await store?.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await store?.close();
    }, 60_000);

    // Each test answers for what the page logged while it ran.
    afterEach(() => {
      expect(problems.splice(0), "console errors, warnings or dialogs").toEqual([]);
    });

    it("lists the runs newest first with their status", async () => {
      await open("#/runs");
      const rows = page.locator("#runs tbody tr");
      const ids = await Promise.all((await rows.all()).map((row) => row.getAttribute("data-run-id")));
      expect(ids).toEqual([runs.running, runs.poisoned, runs.hostile, runs.paused, runs.failed]);
      expect(await page.locator(`tr[data-run-id="${runs.failed}"] .status`).textContent()).toBe(
        "completed_with_failures",
      );
      await page.screenshot({ path: `${OUTPUT}inspector-runs.png`, fullPage: true });
      await page.selectOption("#filter-status", "awaiting_approval");
      await page.click("#run-filter button");
      await drawn("#/runs?status=awaiting_approval");
      expect(await rows.count()).toBe(1);
    });

    it("shows a failed run: the refused call's code, the retry, run_health, the correction and the answer", async () => {
      await open(`#/runs/${runs.failed}`);
      const refused = page.locator('.call.error[data-call-id="w1"]');
      await refused.waitFor();
      expect(await refused.getAttribute("data-error-code")).toBe("FORBIDDEN");
      expect(await refused.locator(".state").textContent()).toBe("error FORBIDDEN");
      expect(await page.locator('.call.retried[data-call-id="w2"] .state').textContent()).toBe("ok after 1 retry");
      expect(await page.locator(".note.health").textContent()).toContain("1 ok, 1 failed");
      expect(await page.locator(".note.correction").textContent()).toContain("claims success");
      // The correction keeps its line breaks; the tool's message and suggestion are two lines.
      expect(
        await page
          .locator(".note.correction")
          .evaluate((e) =>
            (e as unknown as { computedStyleMap(): { get(p: string): { toString(): string } } })
              .computedStyleMap()
              .get("white-space")
              .toString(),
          ),
      ).toBe("pre-wrap");
      expect(await refused.locator(".detail .message").textContent()).toContain("HTTP 403");
      expect(await refused.locator(".detail .suggestion").textContent()).toMatch(/^Suggestion: Do not retry/);
      expect(await page.locator("#final-status").textContent()).toBe("completed_with_failures");
      expect(await page.locator("#final-answer").textContent()).toMatch(/failed with FORBIDDEN/);
      await refused.locator("summary").click();
      expect(await refused.locator("pre").textContent()).toContain('"error_code":"FORBIDDEN"');
      await page.screenshot({ path: `${OUTPUT}inspector-run.png`, fullPage: true });
    });

    it("shows a paused run's pending tool, at its path as at its hash", async () => {
      // A bookmark or a script may name the run by path: the page reads it like its own links.
      await page.goto(new URL(`/runs/${runs.paused}`, page.url()).href);
      await drawn(`#/runs/${runs.paused}`);
      const pending = page.locator('.call.pending[data-call-id="r1"]');
      await pending.waitFor();
      expect(await pending.locator(".state").textContent()).toBe("awaiting approval");
      expect(await page.locator(".note.approval").textContent()).toBe("awaiting approval for refund");
    });

    it("renders hostile tool data and names as text: no element, no script runs", async () => {
      await open(`#/runs/${runs.hostile}`);
      await page.locator("#final-status[data-status]").waitFor();
      expect(await page.locator("#run-agent").textContent()).toContain("<img src=x onerror=");
      // A read-only tool has no journaled start: its arguments come from the turn, never "null".
      expect(await page.locator('.call[data-call-id="n1"] .args').textContent()).toContain("contactId");
      expect(await page.locator("#final-answer").textContent()).toContain("<script>");
      expect(await page.locator("main img, main script, #final img").count()).toBe(0);
      expect(await page.locator("body").getAttribute("data-pwned")).toBeNull();
    });

    it("updates a run that is still running as it goes", async () => {
      await open(`#/runs/${runs.running}`);
      await page.locator('.call.running[data-call-id="t1"]').waitFor();
      // Its process died (the abort gave the lease up): interrupted, until another process takes it.
      expect(await page.locator("#status").textContent()).toBe("interrupted");
      // Another process resumes it: takes the lease, records the outcome and the end.
      const owner = "resumer";
      expect(await store.journal.lease(runs.running, owner)).toBe(true);
      const metadata = { tool: "createTask", callId: "t1", attempts: 1, latencyMs: 3 };
      await store.journal.outcomes(
        runs.running,
        [
          {
            callId: "t1",
            outcome: { status: "ok", retriable: false, data: { taskId: "T-99" }, metadata },
            formatted: '{"status":"ok"}',
          },
        ],
        owner,
      );
      const result = {
        status: "completed",
        text: "Task T-99 created.",
        health: { tools_ok: 1, tools_failed: 0, tools_not_called: 0, blocking_failure: false },
      };
      await store.journal.runEnded(
        runs.running,
        { status: "completed", endedAt: new Date().toISOString(), result },
        owner,
      );
      await page.locator('.call.ok[data-call-id="t1"]').waitFor({ timeout: 10_000 });
      await page.locator('#final-status[data-status="completed"]').waitFor({ timeout: 10_000 });
      expect(await page.locator("#final-answer").textContent()).toBe("Task T-99 created.");
    });

    it("acknowledges a dead letter", async () => {
      await page.click("#nav-letters");
      await drawn("#/dead-letters");
      const row = page.locator("#letters tbody tr");
      await row.first().waitFor();
      expect(await row.locator("td").nth(3).textContent()).toBe("CONFLICT");
      await page.screenshot({ path: `${OUTPUT}inspector-dead-letters-read-only.png`, fullPage: true });
      // Every action is journaled with who took it: the page asks for a name first.
      await page.fill("#operator", "Ada");
      await page.dispatchEvent("#operator", "change");
      await row.locator("button.acknowledge").click();
      await page.locator("#letters-empty:not([hidden])").waitFor();
      const { rows } = await store.pool.query(`SELECT acknowledged_at FROM "${schema}".dead_letters`);
      expect(rows[0].acknowledged_at).toBeInstanceOf(Date);
    });

    it("shows an unknown run's error alone, with no empty header", async () => {
      const before = problems.length;
      await page.goto(`${page.url().split("#")[0]}#/runs/run_no_such_run`);
      await page.locator("#problem:not([hidden])").waitFor();
      expect(await page.locator("#problem").textContent()).toContain("No run with this id");
      expect(await page.locator("#run-view").isHidden()).toBe(true);
      // The browser logs the 404 answer itself; nothing else may be logged.
      problems.push(...problems.splice(before).filter((p) => !/status of 404/.test(p)));
    });
  });
else cannotRun("needlework-inspector in headless Chromium", NO_CHROMIUM);
