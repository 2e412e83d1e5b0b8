import { InvalidOptionError, NeedleworkError } from "@needlework/core";
import { describe, expect, it } from "vitest";
import { invalidOption } from "../../test/invalid-option.js";
import { z } from "zod";
import { parseOptions } from "./parse-options.js";

const schema = z.strictObject({
  retry: z
    .union([
      z.literal(false),
      z.strictObject({
        maxAttempts: z.int("must be an integer of at least 1").min(1, "must be an integer of at least 1").optional(),
      }),
    ])
    .optional(),
  label: z.string().optional(),
});

describe("parseOptions", () => {
  it("returns the parsed options", () => {
    expect(parseOptions("usingX", schema, { retry: { maxAttempts: 2 } })).toEqual({ retry: { maxAttempts: 2 } });
    expect(parseOptions("usingX", schema, undefined)).toEqual({});
  });

  it("names the owner, the dotted option and the value given", () => {
    const error = invalidOption(() => parseOptions("usingX", schema, { retry: { maxAttempts: 0 } }));
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect(NeedleworkError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "INVALID_OPTION", option: "retry.maxAttempts", value: 0 });
    expect(error.message).toBe("usingX: option 'retry.maxAttempts' must be an integer of at least 1 (got 0).");
  });

  it("refuses an unknown key and lists the known ones, nested too", () => {
    expect(invalidOption(() => parseOptions("usingX", schema, { lable: "a" })).message).toBe(
      "usingX: unknown option 'lable'. Known options: retry, label.",
    );
    const nested = invalidOption(() => parseOptions("usingX", schema, { retry: { maxAttempt: 3 } }));
    expect(nested).toMatchObject({ option: "retry.maxAttempt", value: 3 });
    expect(nested.message).toBe("usingX: unknown option 'retry.maxAttempt'. Known options: maxAttempts.");
    const list = z.strictObject({
      rules: z
        .array(z.strictObject({ name: z.string() }))
        .readonly()
        .optional(),
    });
    expect(invalidOption(() => parseOptions("usingX", list, { rules: [{ name: "a", nmae: "b" }] })).message).toBe(
      "usingX: unknown option 'rules.0.nmae'. Known options: name.",
    );
  });

  it("names the option inside a union alternative whose outer type matched", () => {
    const error = invalidOption(() => parseOptions("usingX", schema, { retry: { maxAttempts: 2.5 } }));
    expect(error).toMatchObject({ option: "retry.maxAttempts", value: 2.5 });
    expect(error.message).toBe("usingX: option 'retry.maxAttempts' must be an integer of at least 1 (got 2.5).");
    const outer = invalidOption(() => parseOptions("usingX", schema, { retry: true }));
    expect(outer).toMatchObject({ option: "retry", value: true });
    expect(outer.message).toMatch(/^usingX: option 'retry' .* \(got true\)\.$/);
  });

  it("never shows the value of a credential option, and scrubs secrets from other strings", () => {
    const secrets = z.strictObject({
      checkpointSecret: z.string().min(32, "must be at least 32 bytes").optional(),
      label: z.string().max(3, "must be at most 3 characters").optional(),
    });
    const short = invalidOption(() => parseOptions("usingX", secrets, { checkpointSecret: "hunter2" }));
    // Nor keeps it on the error, where a logger serialising the error would print it.
    expect(short).toMatchObject({ code: "INVALID_OPTION", option: "checkpointSecret", value: "[REDACTED:secret]" });
    expect(JSON.stringify({ ...short, message: short.message })).not.toContain("hunter2");
    expect(short.message).toBe(
      "usingX: option 'checkpointSecret' must be at least 32 bytes (got a string of 7 characters).",
    );
    const key = "sk-proj-abcdefghijklmnopqrstuvwx";
    const scrubbed = invalidOption(() => parseOptions("usingX", secrets, { label: key }));
    expect(scrubbed.message).not.toContain(key);
    expect(scrubbed.message).toMatch(/^usingX: option 'label' must be at most 3 characters \(got "\[REDACTED:/);
  });
});
