/**
 * `@needlework/restate/testing`: a Restate server for tests and examples, spawned from the binary
 * npm ships as `@restatedev/restate-server` on free local ports, with the controls a chaos test needs.
 *
 * @example
 * ```ts
 * import { startRestateServer } from "@needlework/restate/testing";
 *
 * const server = await startRestateServer();
 * await server.register("http://127.0.0.1:9080");
 * await server.stop();
 * ```
 * @packageDocumentation
 */
export {
  freePort,
  type RestateServer,
  type RestateServerOptions,
  restateServerBinary,
  startRestateServer,
} from "./restate-server.js";
