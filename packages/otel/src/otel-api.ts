import type { OtelApi } from "./otel-types.js";

const importApi = (): Promise<unknown> => import("@opentelemetry/api");

let cached: Promise<OtelApi | undefined> | undefined;

function asApi(module: unknown): OtelApi | undefined {
  // ESM namespace, or a CommonJS build seen through `default`.
  for (const candidate of [module, (module as { default?: unknown } | undefined)?.default]) {
    const api = candidate as Partial<OtelApi> | undefined;
    if (typeof api?.trace?.setSpan === "function" && typeof api.context?.with === "function") return api as OtelApi;
  }
  return undefined;
}

/**
 * `@opentelemetry/api` when it is installed, else `undefined`: loaded once, on first use, so
 * needlework neither requires it nor pays for it when tracing is off.
 * @internal
 */
export function loadOtelApi(): Promise<OtelApi | undefined> {
  cached ??= importApi().then(asApi, () => undefined);
  return cached;
}
