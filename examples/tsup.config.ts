import { defineConfig } from "tsup";

// Examples declare decorated tool classes with constructor injection, so they are compiled through
// swc (tsup switches to it when the tsconfig sets emitDecoratorMetadata): esbuild would not emit the
// `design:paramtypes` metadata tsyringe needs.
export default defineConfig({
  entry: { demo: "demo.ts", "order-lookup": "order-lookup/main.ts", "ai-sdk": "ai-sdk/main.ts", "mcp-server": "mcp/server.ts", openai: "openai/main.ts" },
  format: ["esm"],
  outDir: "dist",
  clean: true,
  target: "node20",
  tsconfig: "./tsconfig.json",
});
