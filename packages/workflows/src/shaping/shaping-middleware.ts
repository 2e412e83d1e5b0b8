import {
  type ArtifactReference,
  createToolOutcome,
  isToolOutcome,
  type ToolCallContext,
  type ToolMiddleware,
  type ToolOutcome,
  type ToolOutcomeInit,
  type ToolOutcomeMetadata,
} from "@needlework/core";
import { toolValueOutcome } from "@needlework/core/internal";

/** The parts of an outcome a shaping step replaced. @internal */
export interface OutcomeChanges {
  readonly message?: string;
  readonly suggestion?: string;
  readonly data?: unknown;
  /** Sets where the whole result is stored (`usingArtifacts()`); an outcome's own reference is kept otherwise. */
  readonly artifact?: ArtifactReference;
  /** Replaces the whole metadata (before `flag` is added). */
  readonly metadata?: ToolOutcomeMetadata;
  readonly extraMetadata?: Partial<ToolOutcomeMetadata>;
}

/**
 * A copy of `outcome` with `changes` applied and `flag` added once to `metadata.flags`. The outcome
 * from the inner layers is not mutated: they may still hold it.
 * @internal
 */
export function reviseOutcome(outcome: ToolOutcome, flag: string, changes: OutcomeChanges): ToolOutcome {
  const base = changes.metadata ?? outcome.metadata;
  const flags = base.flags ?? [];
  const metadata: ToolOutcomeMetadata = {
    ...base,
    ...changes.extraMetadata,
    flags: flags.includes(flag) ? [...flags] : [...flags, flag],
  };
  const has = (key: keyof OutcomeChanges): boolean => Object.hasOwn(changes, key);
  const message = has("message") ? changes.message : outcome.message;
  const suggestion = has("suggestion") ? changes.suggestion : outcome.suggestion;
  const data = has("data") ? changes.data : outcome.data;
  const artifact = has("artifact") ? changes.artifact : outcome.artifact;
  const init: ToolOutcomeInit = {
    status: outcome.status,
    retriable: outcome.retriable,
    metadata,
    ...(outcome.errorCode === undefined ? {} : { errorCode: outcome.errorCode }),
    ...(message === undefined ? {} : { message }),
    ...(suggestion === undefined ? {} : { suggestion }),
    ...(outcome.failures === undefined ? {} : { failures: outcome.failures }),
    ...(data === undefined ? {} : { data }),
    ...(artifact === undefined ? {} : { artifact }),
    ...(outcome.exception === undefined ? {} : { exception: outcome.exception }),
  };
  return createToolOutcome(init);
}

/**
 * Middleware for a step that shapes what the model reads. Outside the tool-result middleware
 * `next()` yields outcomes; inside it, raw values or `ToolResult`s, which are normalized first
 * (returned failures and the declared `output` read as the result middleware reads them). `shape` returns a new outcome, or `undefined` to leave the result exactly
 * as it came (a raw value stays raw). Thrown errors pass through untouched.
 * @internal
 */
export function shapingMiddleware(
  shape: (outcome: ToolOutcome, call: ToolCallContext) => ToolOutcome | undefined,
): ToolMiddleware {
  return async (call, next) => {
    const result = await next();
    const outcome = isToolOutcome(result) ? result : toolValueOutcome(result, call.tool);
    return shape(outcome, call) ?? result;
  };
}
