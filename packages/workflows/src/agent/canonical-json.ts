// Canonical JSON lives in core (the MCP and AI SDK adapters hash approved arguments with it too).
export { callKey, canonicalJson, parsedArguments } from "@needlework/core/kit";
