import { describe, expect, it } from "vitest";
import { createToolOutcome, toolResultToOutcome } from "../tool-outcome.js";
import { ToolResult } from "../tool-result.js";
import { scrubSecrets, scrubSecretsDeep } from "./scrub-secrets.js";

describe("scrubSecrets", () => {
  it("replaces what the default detectors find and leaves clean text as it is", () => {
    expect(scrubSecrets("login failed: password=hunter2 AKIAIOSFODNN7EXAMPLE")).toBe(
      "login failed: password=[REDACTED:secret] [REDACTED:api_key]",
    );
    const clean = "Order 42 not found.";
    expect(scrubSecrets(clean)).toBe(clean);
  });

  it("scrubs every string of a plain value and shares the clean parts", () => {
    const clean = { n: 1, list: ["ok"] };
    const value = { clean, error: { type: "Error", message: "token ghp_abcdefghijklmnopqrstuvwxyz0123456789" } };
    const scrubbed = scrubSecretsDeep(value) as typeof value;
    expect(scrubbed.error.message).toBe("token [REDACTED:api_key]");
    expect(scrubbed.clean).toBe(clean);
    expect(value.error.message).toContain("ghp_");
    expect(scrubSecretsDeep(clean)).toBe(clean);
  });
});

describe("outcomes", () => {
  it("carry failure messages and suggestions scrubbed, data as given", () => {
    const outcome = toolResultToOutcome(
      ToolResult.fail("password=hunter2", { suggestion: "mail jane@corp.example", data: { note: "password=hunter2" } }),
    );
    expect(outcome).toMatchObject({ message: "password=[REDACTED:secret]", suggestion: "mail [REDACTED:email]" });
    expect(outcome.data).toEqual({ note: "password=hunter2" });
    expect(createToolOutcome({ status: "error", message: "key sk-abcdefghijklmnopqrstu123" }).message).toBe(
      "key [REDACTED:api_key]",
    );
  });
});

describe("the memo of clean texts", () => {
  it("returns a clean text as it is every time, and scrubs a text with a secret every time", () => {
    const clean = "An unexpected error occurred (TypeError). The call was not retried.";
    expect(scrubSecrets(clean)).toBe(clean);
    expect(scrubSecrets(clean)).toBe(clean);
    const secret = "login failed: password=hunter2";
    for (let i = 0; i < 3; i++) expect(scrubSecrets(secret)).toBe("login failed: password=[REDACTED:secret]");
    // Many distinct clean texts (the memo empties itself when full) never change what is returned.
    for (let i = 0; i < 1_000; i++) expect(scrubSecrets(`step ${i} failed`)).toBe(`step ${i} failed`);
    expect(scrubSecrets(secret)).toBe("login failed: password=[REDACTED:secret]");
  });
});
