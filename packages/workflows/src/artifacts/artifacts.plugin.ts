import type { ToolClass, ToolOutcomeStyle } from "@needlework/core";
import { countTokens, DEFAULT_TRUNCATION_OPTIONS, type TokenEncoding } from "@needlework/shaping";
import { assertTokenizerInstalled, createTruncator, resolveTruncationOptions } from "@needlework/shaping/internal";
import type { AgentFrameworkPlugin, BuildDiagnostic, PluginContext } from "../plugin.js";
import { PLUGIN_TRAITS } from "../plugin.js";
import { offloadMiddleware } from "./artifact-offload.js";
import type { PageMeasure } from "./artifact-page.js";
import { ArtifactReader } from "./artifact-reader.js";
import { type ArtifactsOptions, type ResolvedArtifactsOptions, resolveArtifactsOptions } from "./artifacts.options.js";
import { READ_ARTIFACT_TOOL, readArtifactTools } from "./read-artifact.tool.js";

/**
 * The plugin behind `usingArtifacts(options)`, with its resolved options and the tool class it
 * publishes (`read_artifact`).
 *
 * @example
 * ```ts
 * const plugin: ArtifactsPlugin = artifactsPlugin({ store: new InMemoryArtifactStore() });
 * plugin.options.offloadBytes; // 65536
 * ```
 */
export interface ArtifactsPlugin extends AgentFrameworkPlugin {
  readonly name: "artifacts";
  readonly options: ResolvedArtifactsOptions;
  readonly offloadBytes: number;
  readonly tools: readonly ToolClass[];
}

/** The truncation budget and encoding of the factory: its shaping plugin's that has them, else the defaults. */
function shapingOf(context: PluginContext | undefined): { encoding: TokenEncoding; maxTokens: number } {
  for (const plugin of context?.plugins ?? []) {
    if (!plugin.traits?.includes(PLUGIN_TRAITS.shapesValues)) continue;
    const options = (plugin as { options?: { encoding?: unknown; maxTokens?: unknown } }).options;
    const { encoding, maxTokens } = options ?? {};
    if ((encoding === "o200k_base" || encoding === "cl100k_base") && typeof maxTokens === "number")
      return { encoding, maxTokens };
  }
  return { encoding: DEFAULT_TRUNCATION_OPTIONS.encoding, maxTokens: DEFAULT_TRUNCATION_OPTIONS.maxTokens };
}

/**
 * The plugin behind `usingArtifacts(options)`: a result whose JSON passes `offloadBytes` (default
 * 64 KB) is stored in `store` (content-addressed, scoped to its run, redacted first) and the model
 * reads a preview within `previewTokens` (default 500) beside `artifact: { id, bytes, items, schema }`;
 * the built-in `read_artifact` tool pages through it, each page within the token budget of results
 * (`pageTokens`: the factory's truncation budget by default). Register it
 * after `usingToolResultMiddleware()` and `usingRedaction()` (NW013 when it is not), so what it
 * stores is the redacted outcome. Redaction registered outside it is applied before storing anyway.
 *
 * @example
 * ```ts
 * usingAgentFramework().addAgentFunctions(ReportTools)
 *   .usingToolResultMiddleware().usingRedaction()
 *   .usingPlugin(artifactsPlugin({ store: new InMemoryArtifactStore() }));
 * ```
 */
export function artifactsPlugin(options: ArtifactsOptions): ArtifactsPlugin {
  const resolved = resolveArtifactsOptions(options);
  let style: ToolOutcomeStyle = "envelope";
  let encoding: TokenEncoding = DEFAULT_TRUNCATION_OPTIONS.encoding;
  let pageTokens = resolved.pageTokens ?? DEFAULT_TRUNCATION_OPTIONS.maxTokens;
  const truncate = new Map<TokenEncoding, ReturnType<typeof createTruncator>>();
  const measure: PageMeasure = {
    count: (text) => countTokens(text, encoding),
    cut: (value, maxTokens) => {
      let truncator = truncate.get(encoding);
      if (truncator === undefined)
        truncate.set(encoding, (truncator = createTruncator(resolveTruncationOptions({ encoding }))));
      return truncator(value, Math.max(16, maxTokens)).value;
    },
  };
  const reader = new ArtifactReader(
    resolved.store,
    () => pageTokens,
    measure,
    () => style,
  );
  const tools = [readArtifactTools(reader, resolved.pageTokens)];
  assertTokenizerInstalled(encoding);
  return {
    name: "artifacts",
    traits: [PLUGIN_TRAITS.shapesValues],
    options: resolved,
    offloadBytes: resolved.offloadBytes,
    tools,
    describe: () =>
      `artifacts(offloadBytes: ${resolved.offloadBytes}, previewTokens: ${resolved.previewTokens}, pageTokens: ${resolved.pageTokens ?? "truncation's maxTokens"})`,
    diagnose: (context) => diagnoseArtifacts(context),
    createMiddleware: (context?: PluginContext) => {
      style = context?.plugins.find((p) => p.outcomeStyle !== undefined)?.outcomeStyle ?? "envelope";
      const shaping = shapingOf(context);
      encoding = shaping.encoding;
      pageTokens = resolved.pageTokens ?? shaping.maxTokens;
      assertTokenizerInstalled(encoding);
      const position = context?.position ?? -1;
      const outside = (context?.plugins ?? []).filter((p, i) => i > position && typeof p.redact === "function");
      const redact =
        outside.length === 0
          ? undefined
          : <T>(value: T): T => outside.reduce<unknown>((v, p) => p.redact!(v), value) as T;
      return offloadMiddleware({
        store: resolved.store,
        offloadBytes: resolved.offloadBytes,
        previewTokens: resolved.previewTokens,
        measure,
        reader,
        redact,
        style: () => style,
        readTool: READ_ARTIFACT_TOOL,
      });
    },
  };
}

/** NW013: artifacts registered inside redaction or the tool-result middleware. */
function diagnoseArtifacts(context: PluginContext): BuildDiagnostic[] {
  const { plugins, position } = context;
  const out: BuildDiagnostic[] = [];
  const redactionAfter = plugins.slice(position + 1).find((p) => typeof p.redact === "function");
  if (redactionAfter !== undefined)
    out.push({
      id: "NW013",
      severity: "warning",
      plugin: "artifacts",
      message: `usingArtifacts() is registered before ${redactionAfter.name === "redaction" ? "usingRedaction()" : `the redacting plugin '${redactionAfter.name}'`}: redaction belongs inside it, so what is stored is the redacted outcome (it is redacted before storing anyway, a second time). Register usingArtifacts() after usingRedaction().`,
    });
  const resultAfter = plugins.slice(position + 1).find((p) => p.outcomeStyle !== undefined);
  if (resultAfter !== undefined)
    out.push({
      id: "NW013",
      severity: "warning",
      plugin: "artifacts",
      message:
        "usingArtifacts() is registered before usingToolResultMiddleware(): it stores raw tool values, and a failure the result middleware turns into an outcome is never offloaded. Register usingArtifacts() after usingToolResultMiddleware() and usingRedaction().",
    });
  return out;
}
