import { defineConfig, type Options } from "tsup";
import { copyPackageDocs } from "./scripts/package-docs.ts";

/**
 * The build every package under packages/ shares: ESM and CommonJS with .d.ts, for Node 20.
 * Packages decorate nothing themselves, so they build without emitDecoratorMetadata (esbuild path):
 * the swc path turns on keepNames, whose __name() wrappers add work to every call.
 * After each build the user docs are copied into the package's docs/ (shipped in its tarball); `docs.images`
 * also copies the screenshots.
 */
export function packageBuild(overrides: Options = {}, docs: { readonly images?: boolean } = {}) {
  return defineConfig({
    entry: ["src/index.ts"],
    format: ["esm", "cjs"],
    dts: true,
    clean: true,
    sourcemap: true,
    target: "node20",
    tsconfig: "../../tsconfig.build.json",
    onSuccess: async () => copyPackageDocs(process.cwd(), docs),
    ...overrides,
  });
}
