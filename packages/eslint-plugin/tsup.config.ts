import { packageBuild } from "../../tsup.package.js";

// typescript and the typescript-eslint packages are dependencies (tsup leaves them external).
// Shims give the CommonJS build `import.meta.url`, which the rules' docs URLs are resolved against.
export default packageBuild({ shims: true });
