export { fromChatCompletion, toOpenAIMessages, usageOf } from "./chat-completion-mapping.js";
export { OpenAIChatClient } from "./openai-chat-client.js";
export {
  OPENAI_CHAT_CLIENT_DEFAULTS,
  type OpenAIApi,
  type OpenAIChatClientOptions,
} from "./openai-chat-client.options.js";
export { OpenAIResponseError, type OpenAIResponseErrorCode } from "./openai-response-error.js";
export { fromResponse, responsesUsageOf, toResponsesInput, toResponsesTools } from "./responses-mapping.js";
