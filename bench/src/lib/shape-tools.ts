import "reflect-metadata";
import { AgentFunction, AgentFunctionGroup } from "@needlework/core";
import { z } from "zod";

/** One line item of an order, as a shop API returns it. */
interface LineItem {
  sku: string;
  title: string;
  quantity: number;
  unitPrice: { amount: number; currency: string };
  tags: string[];
}

function lineItem(i: number): LineItem {
  return {
    sku: `SKU-${1000 + i}`,
    title: `Ergonomic desk accessory model ${i}`,
    quantity: 1 + (i % 3),
    unitPrice: { amount: 19.99 + i, currency: "EUR" },
    tags: ["office", i % 2 ? "sale" : "new"],
  };
}

/** A ~1 KB order with 6 line items, a customer and a shipping address: what an order lookup returns. */
export const ORDER_1KB = {
  orderId: "ORD-12345",
  status: "shipped",
  placedAt: "2026-11-20T10:15:00.000Z",
  customer: { id: "C-778", name: "Ada Lovelace", tier: "gold" },
  shipping: { carrier: "DHL", tracking: "JD014600003SE", address: { city: "Berlin", zip: "10115", country: "DE" } },
  items: Array.from({ length: 6 }, (_, i) => lineItem(i)),
  total: { amount: 187.42, currency: "EUR" },
};

/** A ~10 KB list of 40 customer records, what a search tool returns. */
export const RECORDS_10KB = Array.from({ length: 40 }, (_, i) => ({
  id: `C-${i}`,
  name: `Customer number ${i}`,
  email: `customer${i}@example.com`,
  createdAt: "2025-03-01T08:00:00.000Z",
  lifetimeValue: 1200 + i * 7,
  segments: ["retail", i % 3 ? "newsletter" : "vip"],
  address: { street: `${i} Main Street`, city: "Springfield", country: "US" },
}));

/** A ~100 KB list of 400 records. */
export const RECORDS_100KB = Array.from({ length: 10 }, () => RECORDS_10KB).flat();

/** The tool bodies every framework wraps: each returns its shape (the same object each call). */
export const shapeBodies = {
  sum: ({ a, b }: { a: number; b: number }) => ({ sum: a + b }),
  order: (_: { orderId: string }) => ORDER_1KB,
  records10k: (_: { query: string }) => RECORDS_10KB,
  records100k: (_: { query: string }) => RECORDS_100KB,
};

export const sumSchema = z.object({
  a: z.number().describe("First addend."),
  b: z.number().describe("Second addend."),
});
export const orderSchema = z.object({ orderId: z.string().describe("Order id, like 'ORD-12345'.") });
export const querySchema = z.object({ query: z.string().describe("Search text.") });

/** The needlework side: the same bodies as a decorated tool class. */
@AgentFunctionGroup()
export class ShapeTools {
  @AgentFunction({ description: "Adds two numbers and returns { sum }.", input: sumSchema })
  sum(input: { a: number; b: number }) {
    return shapeBodies.sum(input);
  }

  @AgentFunction({ description: "Looks up an order.", input: orderSchema, readOnly: true })
  order(input: { orderId: string }) {
    return shapeBodies.order(input);
  }

  @AgentFunction({ description: "Searches customers (40 records).", input: querySchema, readOnly: true })
  records10k(input: { query: string }) {
    return shapeBodies.records10k(input);
  }

  @AgentFunction({ description: "Searches customers (400 records).", input: querySchema, readOnly: true })
  records100k(input: { query: string }) {
    return shapeBodies.records100k(input);
  }
}
