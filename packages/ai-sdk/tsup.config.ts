import { packageBuild } from "../../tsup.package.js";

export default packageBuild({ entry: ["src/index.ts", "src/chat-client.ts", "src/ui-message-stream.ts"] });
