export {
  createToolResultMiddleware,
  outcomeFromThrown,
  toolResultMiddleware,
  type ToolResultMiddlewareOptions,
} from "./tool-result.middleware.js";
export { toolResultPlugin, type ToolResultPlugin } from "./tool-result.plugin.js";
