/** What a `runId` function learns about the call it names the run for. */
export interface AiSdkToolCallInfo {
  /** The tool the model called. */
  readonly toolName: string;
  /** The AI SDK's tool call id (also the needlework `callId`). */
  readonly toolCallId: string;
  /**
   * The context the SDK hands the tool: `experimental_context` of `generateText`/`streamText` in AI
   * SDK 6, the tool's entry of `toolsContext` in AI SDK 7.
   */
  readonly context: unknown;
}
