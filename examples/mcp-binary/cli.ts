// node --conditions=@needlework/source --import tsx mcp-binary/cli.ts
import { runMcpBinaryExample } from "./main.js";

await runMcpBinaryExample();
