import { defineConfig } from "tsup";

// Examples declare decorated tool classes with constructor injection, so they are compiled through
// swc (tsup switches to it when the tsconfig sets emitDecoratorMetadata): esbuild would not emit the
// `design:paramtypes` metadata tsyringe needs.
export default defineConfig({
  entry: {
    demo: "demo.ts",
    "order-lookup": "order-lookup/cli.ts",
    "crm-sync-audit": "crm-sync-audit/cli.ts",
    "ai-sdk": "ai-sdk/cli.ts",
    "mcp-server": "mcp/cli.ts",
    openai: "openai/cli.ts",
    "live-run": "live-run/cli.ts",
    inspector: "inspector/cli.ts",
  },
  format: ["esm"],
  // No shared chunks: each entry file runs on its own. Entries imported by the demo keep their
  // "run me" line in a separate cli.ts, since a bundled import shares the entry's import.meta.url.
  splitting: false,
  outDir: "dist",
  clean: true,
  target: "node20",
  tsconfig: "./tsconfig.json",
});
