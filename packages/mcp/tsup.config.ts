import { defineConfig } from "tsup";

// This package decorates nothing itself, so it is built without emitDecoratorMetadata (esbuild path):
// the swc path turns on keepNames, whose __name() wrappers cost about 9% per call.
export default defineConfig({
  entry: ["src/index.ts"],
  format: ["esm", "cjs"],
  dts: true,
  clean: true,
  sourcemap: true,
  target: "node20",
  tsconfig: "../../tsconfig.build.json",
});
