// @needlework/ai-sdk's tool approval under the injection policy of a needlework agent: here, in a package
// that depends on both, because @needlework/workflows depends on the adapter (no workspace cycle).
import { describeWithAiSdk } from "../../packages/ai-sdk/test/ai-sdk-majors.js";
import { describeInjectionApproval } from "./injection-approval.suite.js";

// The same tests against each supported AI SDK major (AI SDK 7 only where Node is 22+).
for (const major of [6, 7] as const) await describeWithAiSdk(major, describeInjectionApproval);
