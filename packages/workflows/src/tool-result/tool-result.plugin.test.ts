import { describe, expect, it } from "vitest";
import { invalidOption } from "../../test/invalid-option.js";
import type { ToolResultMiddlewareOptions } from "./tool-result.middleware.js";
import { toolResultPlugin } from "./tool-result.plugin.js";

describe("toolResultPlugin options", () => {
  const refused = (options: unknown) => invalidOption(() => toolResultPlugin(options as ToolResultMiddlewareOptions));

  it("accepts every documented option and keeps the caller's options object", () => {
    const options: ToolResultMiddlewareOptions = {
      style: "needlr",
      formatter: () => ({ message: "Something went wrong." }),
      errorMap: [{ match: RangeError, code: "OUT_OF_RANGE", message: "A value was out of range." }],
    };
    expect(toolResultPlugin(options).options).toBe(options);
    expect(toolResultPlugin().describe?.()).toBe("tool-result(style: envelope, 0 error rules)");
  });

  it("refuses bad options when the plugin is made, naming the option and the value", () => {
    expect(refused({ style: "json" })).toMatchObject({ code: "INVALID_OPTION", option: "style", value: "json" });
    expect(refused({ style: "json" }).message).toBe(
      'usingToolResultMiddleware: option \'style\' must be "envelope" or "needlr" (got "json").',
    );
    expect(refused({ formatter: "short" })).toMatchObject({ option: "formatter", value: "short" });
    expect(refused({ errorMap: {} }).message).toMatch(
      /'errorMap' must be an array of \{ match, code, message \} rules/,
    );
    expect(refused({ errorMap: [{ match: RangeError, code: "X" }] })).toMatchObject({ option: "errorMap.0" });
    expect(refused({ formater: () => undefined }).message).toBe(
      "usingToolResultMiddleware: unknown option 'formater'. Known options: style, formatter, errorMap.",
    );
  });
});
