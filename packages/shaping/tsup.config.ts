import { packageBuild } from "../../tsup.package.js";

export default packageBuild({
  entry: ["src/index.ts", "src/internal.ts"],
  // The tokenizer is loaded lazily through import.meta.url; shims make that work in the CommonJS build.
  shims: true,
});
