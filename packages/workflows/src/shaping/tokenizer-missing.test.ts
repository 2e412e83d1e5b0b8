import { NeedleworkError } from "@needlework/core";
import { describe, expect, it, vi } from "vitest";

// gpt-tokenizer is an optional peer dependency: here it is "not installed" (every require of it fails
// the way Node fails for a package that is absent), and so must be everything that counts tokens.
vi.mock("node:module", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:module")>();
  const missing = (id: string): never => {
    throw Object.assign(new Error(`Cannot find module '${id}'\nRequire stack:\n- /app/index.js`), {
      code: "MODULE_NOT_FOUND",
    });
  };
  return {
    ...actual,
    createRequire: () => Object.assign((id: string) => missing(id), { resolve: (id: string) => missing(id) }),
  };
});

const { countTokens, TOKENIZER_NOT_INSTALLED } = await import("@needlework/shaping");
const { truncationPlugin } = await import("./truncation.plugin.js");
const { usingAgentFramework } = await import("../builder/agent-framework.builder.js");

function thrown(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

describe("without gpt-tokenizer installed", () => {
  it("configuring truncation fails at once, naming the package to install", () => {
    const error = thrown(() => truncationPlugin({ maxTokens: 100 }));
    expect(NeedleworkError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: TOKENIZER_NOT_INSTALLED });
    expect((error as Error).message).toContain("npm install gpt-tokenizer");
    expect((error as Error).message).not.toContain("Require stack");
  });

  it("the builder's usingTruncation() reports the same error, for either encoding", () => {
    for (const encoding of ["o200k_base", "cl100k_base"] as const)
      expect(thrown(() => usingAgentFramework().usingTruncation({ encoding }))).toMatchObject({
        code: TOKENIZER_NOT_INSTALLED,
      });
  });

  it("countTokens reports it too", () => {
    expect(thrown(() => countTokens("Where is ORD-1?"))).toMatchObject({ code: TOKENIZER_NOT_INSTALLED });
  });

  it("a pipeline that never truncates builds without it", () => {
    expect(() => usingAgentFramework().usingResilience().usingToolResultMiddleware().usingRedaction()).not.toThrow();
  });
});
