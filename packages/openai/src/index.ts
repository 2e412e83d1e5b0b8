export { fromChatCompletion, toOpenAIMessages, usageOf } from "./chat-completion-mapping.js";
export { OpenAIChatClient } from "./openai-chat-client.js";
export { OPENAI_CHAT_CLIENT_DEFAULTS, type OpenAIChatClientOptions } from "./openai-chat-client.options.js";
