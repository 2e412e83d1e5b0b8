export { parseOptions, type SchemaMatches } from "@needlework/core/kit";
