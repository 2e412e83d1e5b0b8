import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { NeedleworkError, ToolError, ToolRegistrationError } from "./errors.js";

describe("NeedleworkError", () => {
  it("a logged registration error shows its code and message, not `toolName: undefined` or the marker", () => {
    const error = new ToolRegistrationError("Class Plain is not an agent function group.");
    const printed = inspect(error);
    expect(printed).toContain("code: 'TOOL_REGISTRATION_ERROR'");
    expect(printed).not.toContain("toolName");
    expect(printed).not.toContain("callId");
    expect(printed).not.toContain("needlework.error");
    expect(Object.keys(error)).toEqual(["code"]);
    expect(error.toolName).toBeUndefined();
  });

  it("keeps the tool name and call id when they are known", () => {
    const error = new ToolError("card declined", { toolName: "charge", callId: "c1", code: "CARD_DECLINED" });
    expect(error.toolName).toBe("charge");
    expect(error.callId).toBe("c1");
    expect(inspect(error)).toContain("toolName: 'charge'");
  });

  it("isInstance holds for every subclass and for a copy from another installed package", () => {
    expect(NeedleworkError.isInstance(new ToolRegistrationError("x"))).toBe(true);
    const foreign = Object.create({ [Symbol.for("needlework.error")]: true }) as object;
    expect(NeedleworkError.isInstance(foreign)).toBe(true);
    expect(NeedleworkError.isInstance(new Error("x"))).toBe(false);
    expect(NeedleworkError.isInstance({ [Symbol.for("needlework.error")]: "yes" })).toBe(false);
  });
});
