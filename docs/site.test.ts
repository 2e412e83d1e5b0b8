// The docs site as a reader meets it: the built site (docs/.vitepress/dist, `npx -y pnpm@10 docs:build`,
// which the README's test command runs before Vitest) served on a free port and opened in Debian's
// Chromium through playwright-core: the sidebar's sections in order, pages reached by clicking, and a
// search for `usingResilience` that lands on its API reference. And, without a browser: every page
// under docs/ is in the one sidebar list, every public entry point in the reference's index.
import { createReadStream, existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, type Page, chromium as playwright } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiEntries } from "../scripts/api-entries.js";
import { userPages } from "../scripts/package-docs.js";
import { cannotRun } from "../test/support/cannot-run.js";
import { browserTestsRun, launchChromium, NO_CHROMIUM } from "../test/support/chromium.js";
import { SECTIONS, sectionPages } from "./.vitepress/sidebar.js";

const docsDir = fileURLToPath(new URL(".", import.meta.url));
const dist = join(docsDir, ".vitepress", "dist");
const SECTION_ORDER = ["Getting started", "Guides", "Adapters", "Reference", "ESLint rules", "Troubleshooting"];

describe("the docs site's navigation", () => {
  it("lists every page under docs/ in one sidebar section, in the order getting started → guides → adapters → reference → troubleshooting", () => {
    expect(SECTIONS.map((s) => s.text)).toEqual(SECTION_ORDER);
    const listed = SECTIONS.flatMap(sectionPages);
    const missing = [...userPages(docsDir), "reference/index.md"].filter((page) => !listed.includes(page));
    expect(
      missing,
      `pages in no sidebar section (add each to docs/.vitepress/sidebar.ts): ${missing.join(", ")}`,
    ).toEqual([]);
    const gone = listed.filter((page) => !existsSync(join(docsDir, page)));
    expect(gone, `the sidebar lists pages that do not exist: ${gone.join(", ")}`).toEqual([]);
  });

  it("the reference index links every public entry point's page", () => {
    const index = readFileSync(join(docsDir, "reference", "index.md"), "utf8");
    const missing = apiEntries()
      .map((entry) => entry.specifier)
      .filter((specifier) => !index.includes(`(api/${specifier}.md)`));
    expect(missing, `add a row to docs/reference/index.md for: ${missing.join(", ")}`).toEqual([]);
  });
});

const TYPES = new Map([
  [".html", "text/html; charset=utf-8"],
  [".js", "text/javascript"],
  [".css", "text/css"],
  [".json", "application/json"],
  [".svg", "image/svg+xml"],
  [".png", "image/png"],
  [".woff2", "font/woff2"],
]);

/** Serves the built site as a static host with clean URLs would (`/resilience` is resilience.html). */
function serveSite(root: string): Promise<Server> {
  const server = createServer((request, response) => {
    const path = normalize(decodeURIComponent(new URL(request.url ?? "/", "http://x").pathname));
    const candidates = [join(root, path), join(root, `${path}.html`), join(root, path, "index.html")];
    const file = candidates.find((f) => f.startsWith(root) && existsSync(f) && statSync(f).isFile());
    if (!file) {
      response.writeHead(404).end("not found");
      return;
    }
    response.writeHead(200, { "content-type": TYPES.get(extname(file)) ?? "application/octet-stream" });
    createReadStream(file).pipe(response);
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

const { chromium, run: browserRuns } = browserTestsRun("docs site browser test");

if (!browserRuns) cannotRun("the docs site in headless Chromium", NO_CHROMIUM);
else
  describe("the built docs site, in headless Chromium", () => {
    let server: Server;
    let browser: Browser;
    let page: Page;
    let base: string;
    const problems: string[] = [];

    beforeAll(async () => {
      if (!existsSync(join(dist, "index.html")) || readdirSync(dist).length === 0)
        throw new Error("The docs site is not built: run `npx -y pnpm@10 docs:build` first (the test command does).");
      if (!chromium) throw new Error("No Chromium on this CI machine: .ci/run installs the Debian package chromium.");
      server = await serveSite(dist);
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      browser = await launchChromium(playwright, chromium);
      page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      page.on("console", (message) => {
        if (message.type() === "error") problems.push(`${message.text()} (${message.location().url})`);
      });
      page.on("pageerror", (error) => problems.push(error.message));
      page.on("response", (response) => {
        if (response.status() >= 400) problems.push(`${response.status()} ${response.url()}`);
      });
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
      await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    });

    it("shows the sidebar's sections in order, and a click on a page's entry opens that page", async () => {
      await page.goto(`${base}/`);
      const sections = page.locator(".VPSidebar .VPSidebarItem.level-0 > .item h2");
      await sections.first().waitFor();
      // The generated API reference's own section comes last.
      expect(await sections.allTextContents()).toEqual([...SECTION_ORDER, "API reference"]);
      await page.locator(".VPSidebar a", { hasText: /^Getting started$/ }).click();
      await page.waitForURL(`${base}/getting-started`);
      // The URL changes before the page is drawn: wait for its heading.
      await page.locator(".vp-doc h1", { hasText: "Getting started" }).waitFor();
      await page.locator(".VPSidebar a", { hasText: /^Resilience$/ }).click();
      await page.waitForURL(`${base}/resilience`);
      await page.locator(".vp-doc h1", { hasText: "Resilience" }).waitFor();
      await page.locator(".VPSidebar a", { hasText: /^Troubleshooting$/ }).click();
      await page.waitForURL(`${base}/troubleshooting`);
      await page.locator(".vp-doc h1", { hasText: "Troubleshooting" }).waitFor();
    }, 60_000);

    it("a search for usingResilience lands on its API reference", async () => {
      await page.goto(`${base}/getting-started`);
      await page.locator("button.DocSearch-Button").click();
      const input = page.locator("#localsearch-input");
      await input.fill("usingResilience");
      const first = page.locator(".VPLocalSearchBox .results .result").first();
      await first.waitFor();
      expect(await first.getAttribute("href")).toMatch(/\/reference\/api\/@needlework\/workflows#usingresilience$/);
      await input.press("Enter");
      await page.waitForURL(/\/reference\/api\/@needlework\/workflows#usingresilience$/);
      const heading = page.locator("h5#usingresilience");
      await heading.waitFor();
      expect(await heading.textContent()).toContain("usingResilience()");
      const signature = page.locator("h5#usingresilience ~ div.language-ts").first();
      expect(await signature.textContent()).toContain("usingResilience(options?): this;");
      expect(problems).toEqual([]);
    }, 60_000);
  });
