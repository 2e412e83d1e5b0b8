import { packageBuild } from "../../tsup.package.js";

// typescript and the typescript-eslint packages are dependencies (tsup leaves them external).
export default packageBuild();
