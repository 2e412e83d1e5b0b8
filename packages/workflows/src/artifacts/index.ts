export { ARTIFACT_NOT_STORED_FLAG } from "./artifact-offload.js";
export { artifactsPlugin, type ArtifactsPlugin } from "./artifacts.plugin.js";
export { type ArtifactsOptions, DEFAULT_OFFLOAD_BYTES } from "./artifacts.options.js";
export { READ_ARTIFACT_TOOL } from "./read-artifact.tool.js";
export { storeAsArtifact, type StoreAsArtifactOptions } from "./store-as-artifact.js";
