import { AgentFunction, AgentFunctionGroup, ToolResult } from "@needlework/core";
import { z } from "zod";

/** An HTTP error as vendor SDKs throw it; the tool-result middleware maps its status, never its text. */
export class UpstreamError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The warehouse the tools talk to; a fresh one per test. */
export class Warehouse {
  readonly stock = new Map([["SKU-1", 7]]);
  /** The next `reserve` calls fail with a 503 while this is above 0. */
  outages = 0;
  readonly reservations: { sku: string; quantity: number }[] = [];
}

@AgentFunctionGroup()
export class WarehouseTools {
  constructor(private readonly warehouse: Warehouse) {}

  @AgentFunction({
    description: "Reads the stock level of a product.",
    input: z.object({ sku: z.string().describe("Product SKU, like 'SKU-1'.") }),
  })
  getStock({ sku }: { sku: string }) {
    const onHand = this.warehouse.stock.get(sku);
    if (onHand === undefined)
      return ToolResult.fail(`No product '${sku}'`, {
        code: "SKU_NOT_FOUND",
        suggestion: "Check the SKU with the customer.",
      });
    return ToolResult.ok({ sku, onHand });
  }

  @AgentFunction({
    description: "Reserves units of a product.",
    input: z.object({ sku: z.string(), quantity: z.number().int().positive() }),
  })
  reserve({ sku, quantity }: { sku: string; quantity: number }) {
    if (this.warehouse.outages > 0) {
      this.warehouse.outages--;
      throw new UpstreamError(500, "warehouse-db-3 failed (pool exhausted, tenant 42)");
    }
    this.warehouse.reservations.push({ sku, quantity });
    return { reservationId: `R-${this.warehouse.reservations.length}`, sku, quantity };
  }
}
