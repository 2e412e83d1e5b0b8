import { describeWithAiSdk } from "../test/ai-sdk-majors.js";
import { describeToAiSdkTools } from "../test/to-ai-sdk-tools.suite.js";

// The same tests against each supported AI SDK major (AI SDK 7 only where Node is 22+).
for (const major of [6, 7] as const) await describeWithAiSdk(major, describeToAiSdkTools);
