// The browser tests' temporary Chromium homes (test/support/chromium.ts) go when the browser does: after a close
// (or crash), and at once when the launch fails.
import { existsSync } from "node:fs";
import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { chromiumLaunchOptions, launchChromium } from "./support/chromium.js";

type Options = ReturnType<typeof chromiumLaunchOptions>;

describe("launchChromium", () => {
  it("removes the browser's temporary home once the browser disconnects, not before", async () => {
    let home = "";
    const browser = new EventEmitter();
    const launched = await launchChromium(
      {
        launch: async (options: Options) => {
          home = options.env["HOME"] ?? "";
          return browser;
        },
      },
      "/usr/bin/chromium",
    );
    expect(launched).toBe(browser);
    expect(home).toMatch(/chromium-home-/);
    expect(existsSync(home)).toBe(true);
    browser.emit("disconnected");
    expect(existsSync(home)).toBe(false);
  });

  it("removes the home at once when the launch fails, and rethrows", async () => {
    let home = "";
    const failing = {
      launch: async (options: Options): Promise<EventEmitter> => {
        home = options.env["HOME"] ?? "";
        throw new Error("no such browser");
      },
    };
    await expect(launchChromium(failing, "/nowhere/chromium")).rejects.toThrow("no such browser");
    expect(home).not.toBe("");
    expect(existsSync(home)).toBe(false);
  });
});
