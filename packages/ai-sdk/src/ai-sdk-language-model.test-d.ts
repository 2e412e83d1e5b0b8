import type { MockLanguageModelV4 } from "ai/test";
import type { MockLanguageModelV2 } from "ai-v5/test";
import type { MockLanguageModelV3 } from "ai-v6/test";
import { expectTypeOf, test } from "vitest";
import type { AiSdkLanguageModel } from "./ai-sdk-language-model.js";

test("a model of every supported spec (V2, V3, V4) is an AiSdkLanguageModel without a cast", () => {
  const fromV2 = (model: MockLanguageModelV2): AiSdkLanguageModel => model;
  const fromV3 = (model: MockLanguageModelV3): AiSdkLanguageModel => model;
  const fromV4 = (model: MockLanguageModelV4): AiSdkLanguageModel => model;
  expectTypeOf(fromV2).returns.toEqualTypeOf<AiSdkLanguageModel>();
  expectTypeOf(fromV3).returns.toEqualTypeOf<AiSdkLanguageModel>();
  expectTypeOf(fromV4).returns.toEqualTypeOf<AiSdkLanguageModel>();
});
