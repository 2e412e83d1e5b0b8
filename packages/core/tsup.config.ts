import { packageBuild } from "../../tsup.package.js";

export default packageBuild({
  entry: ["src/index.ts", "src/kit.ts", "src/events.ts", "src/internal.ts"],
  // ajv is loaded lazily through import.meta.url (json-schema-check.ts); shims make that work in the CommonJS build.
  shims: true,
});
