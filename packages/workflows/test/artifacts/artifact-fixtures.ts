import "reflect-metadata";
import {
  AgentFunction,
  AgentFunctionGroup,
  type ChatRequest,
  ScriptedChatClient,
  type ScriptedTurn,
} from "@needlework/core";
import { z } from "zod";

/** A card number planted in one row: redaction must scrub it before anything is stored. */
export const PLANTED_CARD = "4111 1111 1111 1111";
export const ROW_COUNT = 10_000;

/** 10,000 rows (about 0.7 MB of JSON); row 4,321 carries a card number in its note. */
export function reportRows(count = ROW_COUNT): { id: number; customer: string; total: number; note: string }[] {
  return Array.from({ length: count }, (_, id) => ({
    id,
    customer: `customer-${id % 97}`,
    total: Math.round(id * 13.7) / 10,
    note: id === 4321 ? `paid with card ${PLANTED_CARD}` : "ok",
  }));
}

@AgentFunctionGroup("reports")
export class ReportTools {
  @AgentFunction({ description: "Every order of the quarter.", input: z.object({}), readOnly: true })
  orders() {
    return reportRows();
  }

  @AgentFunction({ description: "The quarter's total.", input: z.object({}), readOnly: true })
  total() {
    return { total: 42 };
  }
}

/** The envelope of the last tool message of a request. */
export function lastToolEnvelope(request: ChatRequest): Record<string, unknown> {
  const last = request.messages.at(-1);
  return JSON.parse(last?.role === "tool" ? last.content : "{}") as Record<string, unknown>;
}

/**
 * A scripted model that calls `orders`, then pages through the artifact its result refers to with
 * `read_artifact` (one page a turn, from where the last page ended), then answers with how many
 * rows it read. `seen` collects every row id read, in order.
 */
export function pagingModel(
  seen: number[],
  options: { readonly pageLimit?: number; readonly hangAfterPages?: number; readonly onHang?: () => void } = {},
): ScriptedChatClient {
  const step = (request: ChatRequest): ScriptedTurn | Promise<ScriptedTurn> => {
    // The artifact's id, from the first result that carried one (read from the conversation, so a
    // model asked again after a resume finds it too).
    const artifactId = request.messages
      .filter((m) => m.role === "tool")
      .map((m) => (JSON.parse(m.content) as { artifact?: { id: string } }).artifact?.id)
      .find((id) => id !== undefined)!;
    const envelope = lastToolEnvelope(request);
    const limit = options.pageLimit ?? 1000;
    if (envelope["artifact"] !== undefined)
      return { toolCalls: [{ name: "read_artifact", arguments: { id: artifactId, offset: 0, limit } }] };
    const page = envelope["data"] as { items: { id: number }[]; offset: number; total: number };
    for (const row of page.items) seen.push(row.id);
    const pages = request.messages.filter((m) => m.role === "tool").length - 1;
    if (pages === options.hangAfterPages) {
      options.onHang?.();
      return new Promise<never>(() => undefined); // the model never answers: the process is killed here
    }
    const next = page.offset + page.items.length;
    if (next >= page.total) return { text: `Read ${next} rows.` };
    return { toolCalls: [{ name: "read_artifact", arguments: { id: artifactId, offset: next, limit } }] };
  };
  return new ScriptedChatClient(
    [{ toolCalls: [{ name: "orders", arguments: {} }] }, ...Array.from({ length: 2000 }, () => step)],
    { stepBy: "conversation" },
  );
}
