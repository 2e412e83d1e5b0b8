import { AgentFunction, AgentFunctionGroup, type ToolClass, type ToolContext } from "@needlework/core";
import { z } from "zod";
import type { ArtifactReader, ReadArtifactArguments } from "./artifact-reader.js";

/**
 * The name of the built-in tool that pages through artifacts (published with the others when
 * `usingArtifacts()` is on).
 *
 * @example
 * ```ts
 * factory.tools.definitions.some((d) => d.name === READ_ARTIFACT_TOOL); // true with usingArtifacts()
 * ```
 */
export const READ_ARTIFACT_TOOL = "read_artifact";

const input = z.object({
  id: z.string().describe("The artifact's id, from the `artifact` field of a result of this run."),
  path: z
    .string()
    .nullish()
    .describe('A JSON path into the artifact, like "$.rows" or "rows[3].name"; leave it out for the whole artifact.'),
  offset: z
    .int()
    .min(0)
    .describe("The first item (of a list or an object's members) or character (of text) to read, from 0."),
  limit: z.int().min(1).max(1000).describe("The most items to read; a page also stops at its token budget."),
});

/**
 * A tool class with `read_artifact`, reading through `reader` (one class per plugin: its instance
 * needs no injection). @internal
 */
export function readArtifactTools(reader: ArtifactReader, maxTokens: number | undefined): ToolClass {
  class ArtifactTools {
    read(args: ReadArtifactArguments, ctx: ToolContext) {
      return reader.read(ctx.runId, args, {
        name: READ_ARTIFACT_TOOL,
        callId: ctx.callId,
        idempotencyKey: ctx.idempotencyKey,
      });
    }
  }
  const method = Object.getOwnPropertyDescriptor(ArtifactTools.prototype, "read")!;
  AgentFunction({
    name: READ_ARTIFACT_TOOL,
    description:
      "Reads a page of an artifact: a result too large to read at once, stored for this run. Returns { items, offset, total } for a list (and an object's members), { text, offset, total } for text; read on from offset + the number of items returned.",
    input,
    readOnly: true,
    idempotent: true,
    ...(maxTokens === undefined ? {} : { maxResultTokens: maxTokens }),
  })(ArtifactTools.prototype, "read", method);
  AgentFunctionGroup()(ArtifactTools);
  return ArtifactTools;
}
