import type { Tool } from "@modelcontextprotocol/sdk/types.js";

/**
 * What you declare about a server's tools, for all of them (`connectMcpServer` options) or one
 * (`tools: { get_order: {...} }`). A server's annotations are hints from a third party: unless you
 * say otherwise, a remote tool has effects (`effects: "external"`), its results are untrusted
 * (`reads: "untrusted"`, so the injection policy covers them), it is not idempotent and needs no
 * approval.
 *
 * @example
 * ```ts
 * const declared: RemoteToolOverrides = { readOnly: true, reads: "trusted", timeoutMs: 5_000 };
 * ```
 */
export interface RemoteToolOverrides {
  /** The tool changes nothing (then it is also idempotent and has `effects: "none"`). */
  readonly readOnly?: boolean;
  /** Where its results come from; default `"untrusted"`. */
  readonly reads?: "trusted" | "untrusted";
  /** What it changes; default `"external"` (`"none"` when read-only). */
  readonly effects?: "none" | "internal" | "external";
  /** Safe to send twice under one idempotency key (the server honours `_meta` `"io.needlework/idempotency-key"`). */
  readonly idempotent?: boolean;
  /** The call waits for a person's decision before it runs. Default `false`. */
  readonly approval?: boolean;
  /** Per-attempt timeout in milliseconds (resilience), also the MCP request's own timeout. */
  readonly timeoutMs?: number;
  /** It reads private data (for the injection policy's NW010). Default `false`. */
  readonly sensitive?: boolean;
  /** Result budget in tokens (truncation). */
  readonly maxResultTokens?: number;
}

/** The keys of {@link RemoteToolOverrides}, read as own properties. @internal */
export const OVERRIDE_KEYS = [
  "readOnly",
  "reads",
  "effects",
  "idempotent",
  "approval",
  "timeoutMs",
  "sensitive",
  "maxResultTokens",
] as const satisfies readonly (keyof RemoteToolOverrides)[];

/** The flags a remote tool runs under, resolved once per tool. @internal */
export interface ResolvedRemoteFlags {
  readonly readOnly: boolean;
  readonly reads: "trusted" | "untrusted";
  readonly effects: "none" | "internal" | "external";
  readonly idempotent: boolean;
  readonly approval: boolean;
  readonly timeoutMs?: number;
  readonly sensitive?: boolean;
  readonly maxResultTokens?: number;
}

function own<K extends keyof RemoteToolOverrides>(
  overrides: RemoteToolOverrides | undefined,
  key: K,
): RemoteToolOverrides[K] | undefined {
  return overrides !== undefined && Object.hasOwn(overrides, key) ? overrides[key] : undefined;
}

/**
 * The flags of one remote tool: the tool's own overrides first, then the server's, then the
 * server's annotations when `trust.annotations` is on (`readOnlyHint`, `idempotentHint`), then the
 * defaults (not read-only, `effects: "external"`, `reads: "untrusted"`, not idempotent). A read-only
 * tool is idempotent (repeating a read changes nothing). `idempotent` is always declared, so reading
 * the idempotency key (to send it in `_meta`) never makes a call look idempotent. @internal
 *
 * @example
 * ```ts
 * resolveFlags(tool, { readOnly: true }, undefined, false); // { readOnly: true, effects: "none", idempotent: true, ... }
 * ```
 */
export function resolveFlags(
  tool: Tool,
  server: RemoteToolOverrides,
  perTool: RemoteToolOverrides | undefined,
  trustAnnotations: boolean,
): ResolvedRemoteFlags {
  const pick = <K extends keyof RemoteToolOverrides>(key: K): RemoteToolOverrides[K] | undefined =>
    own(perTool, key) ?? own(server, key);
  const hints = trustAnnotations ? tool.annotations : undefined;
  const readOnly = pick("readOnly") ?? hints?.readOnlyHint === true;
  const effects = own(perTool, "effects") ?? (readOnly ? "none" : (own(server, "effects") ?? "external"));
  const idempotent = pick("idempotent") ?? (readOnly || hints?.idempotentHint === true);
  const timeoutMs = pick("timeoutMs");
  const sensitive = pick("sensitive");
  const maxResultTokens = pick("maxResultTokens");
  return {
    readOnly,
    reads: pick("reads") ?? "untrusted",
    effects,
    idempotent,
    approval: pick("approval") ?? false,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    ...(sensitive === undefined ? {} : { sensitive }),
    ...(maxResultTokens === undefined ? {} : { maxResultTokens }),
  };
}
