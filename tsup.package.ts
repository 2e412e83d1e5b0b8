import { defineConfig, type Options } from "tsup";

/**
 * The build every package under packages/ shares: ESM and CommonJS with .d.ts, for Node 20.
 * Packages decorate nothing themselves, so they build without emitDecoratorMetadata (esbuild path):
 * the swc path turns on keepNames, whose __name() wrappers add work to every call.
 */
export function packageBuild(overrides: Options = {}) {
  return defineConfig({
    entry: ["src/index.ts"],
    format: ["esm", "cjs"],
    dts: true,
    clean: true,
    sourcemap: true,
    target: "node20",
    tsconfig: "../../tsconfig.build.json",
    ...overrides,
  });
}
