/**
 * `@needlework/otel/internal`: what `@needlework/workflows` shares with the span code (the setup its
 * tests inject, the run statuses that are not errors). Not part of the public API: names here may
 * change in any release.
 *
 * @example
 * ```ts
 * import { createOpenTelemetry } from "@needlework/otel/internal";
 * const otel = createOpenTelemetry({ tracer: "global" }, { instrumentationScope: "@needlework/workflows" });
 * ```
 * @packageDocumentation
 */
export { createOpenTelemetry, type OpenTelemetrySetup } from "./open-telemetry.js";
export type { ModuleImporter } from "./otel-api.js";
export { SETTLED_RUN_STATUSES } from "./run-statuses.js";
export { loadOtelApi } from "./otel-api.js";
export { type OtelApi, SPAN_KIND, SPAN_STATUS } from "./otel-types.js";
