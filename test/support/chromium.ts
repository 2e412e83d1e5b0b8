// Debian's Chromium for the browser tests, driven by playwright-core (Playwright's own download cannot work here).
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The flags every browser test launches Chromium with (headless, in a container, no network chatter). */
export const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Temporary homes made by {@link chromiumLaunchOptions} and not yet removed. */
const homes = new Set<string>();

/** Removes a temporary home (a Chromium still shutting down may write a last file: retried). */
function removeHome(home: string): void {
  if (!homes.delete(home)) return;
  rmSync(home, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
}

// A backstop for options launched without launchChromium (or a browser never closed): whatever homes
// are left go when the test process (or worker) ends.
process.once("exit", () => {
  for (const home of [...homes]) removeHome(home);
});

/**
 * The launch options every browser test uses: Debian's Chromium at `executablePath`, {@link CHROMIUM_FLAGS}, and a
 * home, config and cache folder under the temporary folder, so Chromium writes nothing into the user's home
 * (`~/.config/chromium`, `~/.cache/dconf`). The home is removed when the process ends; launch with
 * {@link launchChromium} to remove it as soon as the browser closes.
 */
export function chromiumLaunchOptions(executablePath: string): {
  executablePath: string;
  args: string[];
  env: Record<string, string>;
  timeout: number;
} {
  const home = mkdtempSync(join(tmpdir(), "chromium-home-"));
  homes.add(home);
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  Object.assign(env, { HOME: home, XDG_CONFIG_HOME: join(home, ".config"), XDG_CACHE_HOME: join(home, ".cache") });
  return { executablePath, args: [...CHROMIUM_FLAGS], env, timeout: 60_000 };
}

/** What {@link launchChromium} needs of a browser: playwright-core's `Browser`. */
interface ClosableBrowser {
  once(event: "disconnected", listener: () => void): unknown;
}

/**
 * Launches Chromium with {@link chromiumLaunchOptions} through playwright-core's `chromium`, and removes its
 * temporary home once the browser is gone (closed, or crashed), or at once when the launch fails.
 *
 * @example
 * browser = await launchChromium(playwright, chromium);
 * // afterAll: await browser.close(); (the home goes with it)
 */
export async function launchChromium<B extends ClosableBrowser>(
  launcher: { launch(options: ReturnType<typeof chromiumLaunchOptions>): Promise<B> },
  executablePath: string,
): Promise<B> {
  const options = chromiumLaunchOptions(executablePath);
  const home = options.env["HOME"]!;
  let browser: B;
  try {
    browser = await launcher.launch(options);
  } catch (error) {
    removeHome(home);
    throw error;
  }
  browser.once("disconnected", () => removeHome(home));
  return browser;
}

/** Why a browser test cannot run on a machine without Chromium, and what to do about it. */
export const NO_CHROMIUM = "no Chromium on this machine (install the Debian package chromium; CI does)";

/** Debian's chromium (`command -v chromium`), or undefined when the machine has none. */
export function findChromium(): string | undefined {
  try {
    return (
      execFileSync("sh", ["-c", "command -v chromium || command -v chromium-browser"], { encoding: "utf8" }).trim() ||
      undefined
    );
  } catch {
    return undefined;
  }
}

/**
 * Whether browser tests run: without Chromium they are skipped with one printed line, except on CI
 * (`CI` set), where they run and fail, since CI installs Chromium.
 */
export function browserTestsRun(name: string): { readonly chromium: string | undefined; readonly run: boolean } {
  const chromium = findChromium();
  if (!chromium)
    console.log(
      `${name}: no Chromium found (install the Debian package chromium)${process.env["CI"] ? "; CI is set, so it fails" : "; skipped"}`,
    );
  return { chromium, run: chromium !== undefined || process.env["CI"] !== undefined };
}
