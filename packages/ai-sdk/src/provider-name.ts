/** AI SDK provider ids (the part before the first dot) whose GenAI convention name differs. */
const CONVENTION_NAMES: ReadonlyMap<string, string> = new Map([
  ["amazon-bedrock", "aws.bedrock"],
  ["bedrock", "aws.bedrock"],
  ["google.generative-ai", "gcp.gemini"],
  ["google.vertex", "gcp.vertex_ai"],
  ["azure", "azure.ai.openai"],
  ["azure-openai", "azure.ai.openai"],
  ["mistral", "mistral_ai"],
  ["xai", "x_ai"],
  ["ibm-watsonx", "ibm.watsonx.ai"],
]);

/**
 * The OpenTelemetry GenAI `gen_ai.provider.name` for an AI SDK provider id: `openai.chat` and
 * `openai.responses` are `openai`, `anthropic.messages` is `anthropic`, `amazon-bedrock` is
 * `aws.bedrock`, `google.generative-ai` is `gcp.gemini`; an id with no known name keeps its first
 * segment (`ollama.chat` is `ollama`).
 *
 * @example
 * ```ts
 * toProviderName("anthropic.messages"); // "anthropic"
 * ```
 */
export function toProviderName(providerId: string): string {
  const [first = providerId] = providerId.split(".");
  const twoSegments = providerId.split(".").slice(0, 2).join(".");
  return CONVENTION_NAMES.get(twoSegments) ?? CONVENTION_NAMES.get(first) ?? first;
}
