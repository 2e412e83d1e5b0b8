import { packageBuild } from "../../tsup.package.js";

// `shims`: the server finds its page files from `import.meta.url`, which the CommonJS build needs shimmed.
// Its docs/ carries the screenshots the inspector's page shows.
export default packageBuild({ entry: ["src/index.ts", "src/cli.ts"], shims: true }, { images: true });
