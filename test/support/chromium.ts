// Debian's Chromium for the browser tests, driven by playwright-core (Playwright's own download cannot work here).
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
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

/**
 * The launch options every browser test uses: Debian's Chromium at `executablePath`, {@link CHROMIUM_FLAGS}, and a
 * home, config and cache folder under the temporary folder, so Chromium writes nothing into the user's home
 * (`~/.config/chromium`, `~/.cache/dconf`).
 */
export function chromiumLaunchOptions(executablePath: string): {
  executablePath: string;
  args: string[];
  env: Record<string, string>;
  timeout: number;
} {
  const home = mkdtempSync(join(tmpdir(), "chromium-home-"));
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  Object.assign(env, { HOME: home, XDG_CONFIG_HOME: join(home, ".config"), XDG_CACHE_HOME: join(home, ".cache") });
  return { executablePath, args: [...CHROMIUM_FLAGS], env, timeout: 60_000 };
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
