import { packageBuild } from "../../tsup.package.js";

// `vitest` stays external: the contract suites in `/testing` run inside the user's own vitest.
export default packageBuild({ entry: ["src/index.ts", "src/testing.ts", "src/internal.ts"], external: ["vitest"] });
