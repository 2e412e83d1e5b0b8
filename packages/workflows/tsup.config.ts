import { defineConfig } from "tsup";

// workflows decorates nothing itself, so it is built without emitDecoratorMetadata (esbuild path):
// the swc path turns on keepNames, whose __name() wrappers cost about 9% per call.
export default defineConfig({
  entry: ["src/index.ts", "src/testing.ts"],
  format: ["esm", "cjs"],
  dts: true,
  clean: true,
  sourcemap: true,
  target: "node20",
  // The tokenizer is loaded lazily through import.meta.url; shims make that work in the CommonJS build.
  shims: true,
  tsconfig: "../../tsconfig.build.json",
});
