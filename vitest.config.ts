import { fileURLToPath } from "node:url";
import swc from "unplugin-swc";
import { defineConfig } from "vitest/config";

const root = fileURLToPath(new URL(".", import.meta.url));

// Tests run against package sources. esbuild (vite's default transform) does not emit
// `design:paramtypes`, which tsyringe needs for constructor injection, so tests compile through swc.
export default defineConfig({
  plugins: [
    swc.vite({
      jsc: {
        parser: { syntax: "typescript", decorators: true },
        transform: { legacyDecorator: true, decoratorMetadata: true },
        target: "es2022",
      },
    }),
  ],
  resolve: {
    alias: [
      {
        find: /^@needlework\/(core|durable|shaping|workflows|otel|openai|ai-sdk|mcp|postgres|inspector|dbos|restate)$/,
        replacement: `${root}packages/$1/src/index.ts`,
      },
      {
        find: /^@needlework\/(core|durable|shaping|workflows|otel|openai|ai-sdk|mcp|postgres|inspector|dbos|restate)\/([a-z-]+)$/,
        replacement: `${root}packages/$1/src/$2.ts`,
      },
    ],
  },
  test: {
    include: [
      "packages/*/src/**/*.test.ts",
      "packages/*/test/**/*.test.ts",
      "examples/**/*.test.ts",
      "docs/**/*.test.ts",
      "test/**/*.test.ts",
    ],
    exclude: ["**/node_modules/**", "**/dist/**"],
    typecheck: {
      enabled: true,
      include: ["packages/*/src/**/*.test-d.ts", "packages/*/test/**/*.test-d.ts"],
      tsconfig: "./tsconfig.check.json",
    },
    setupFiles: [`${root}vitest.setup.ts`],
    // Fails the run when it leaves a file outside the clone and the temporary folder (named).
    // Fails the run when a process a test started is still alive after it (named, then killed).
    globalSetup: [`${root}test/support/outside-writes.ts`, `${root}test/support/leaked-processes.ts`],
    restoreMocks: true,
    // Tests must pass on a slow, shared machine: property suites of a few hundred async cases can take
    // seconds there. Speed is measured in bench/, never by a test's time limit.
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
