import { packageBuild } from "../../tsup.package.js";

// `shims`: the server finds its page files from `import.meta.url`, which the CommonJS build needs shimmed.
export default packageBuild({ entry: ["src/index.ts", "src/cli.ts"], shims: true });
