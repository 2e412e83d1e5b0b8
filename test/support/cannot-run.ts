// Test support (not exported): what a test file registers when its suite cannot run on this machine.
import { it } from "vitest";

/**
 * Registers, in place of a suite that cannot run here, one test named for it that says why: skipped
 * with the reason (the reporter shows it) on a developer's machine, failed on CI (`CI` set), where
 * every suite must run. Never an empty skip.
 *
 * @example
 * if (!chromium) cannotRun("the inspector in headless Chromium", "no Chromium: install the Debian package chromium");
 */
export function cannotRun(name: string, reason: string): void {
  it(name, (context) => {
    if (process.env["CI"]) throw new Error(`${name} cannot run on CI: ${reason}.`);
    context.skip(reason);
  });
}
