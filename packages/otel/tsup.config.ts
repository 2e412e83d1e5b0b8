import { packageBuild } from "../../tsup.package.js";

export default packageBuild({ entry: ["src/index.ts"] });
