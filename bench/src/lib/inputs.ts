/** Deterministic inputs for benchmarks: the same bytes on every run and machine. */

/** A small linear congruential generator, so inputs do not depend on Math.random. */
export function seededRandom(seed = 42): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

const WORDS =
  "the order was shipped to the customer after the payment cleared and the invoice was sent by the billing service while support noted a delay in the warehouse".split(
    " ",
  );

function sentence(random: () => number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(WORDS[Math.floor(random() * WORDS.length)]!);
  return out.join(" ");
}

/** An order record as a CRM or shop API returns it. */
export interface OrderRecord {
  id: string;
  customer_id: string;
  status: string;
  created_at: string;
  total: number;
  currency: string;
  note: string;
  lines: { sku: string; qty: number; price: number }[];
  tags: string[];
}

/** An array of order records whose compact JSON is at least `bytes` long. */
export function orderRecords(bytes: number, random = seededRandom()): OrderRecord[] {
  const rows: OrderRecord[] = [];
  let size = 2;
  for (let i = 0; size < bytes; i++) {
    const row: OrderRecord = {
      id: `ORD-${100_000 + i}`,
      customer_id: `CUS-${Math.floor(random() * 90_000) + 10_000}`,
      status: ["open", "paid", "shipped", "delivered", "refunded"][i % 5]!,
      created_at: new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString(),
      total: Math.round(random() * 100_000) / 100,
      currency: "EUR",
      note: sentence(random, 8 + Math.floor(random() * 12)),
      lines: Array.from({ length: 1 + Math.floor(random() * 3) }, (_, j) => ({
        sku: `SKU-${i}-${j}`,
        qty: 1 + Math.floor(random() * 4),
        price: Math.round(random() * 10_000) / 100,
      })),
      tags: ["web", "priority"].slice(0, 1 + (i % 2)),
    };
    size += JSON.stringify(row).length + 1;
    rows.push(row);
  }
  return rows;
}

/**
 * Log-like text of exactly `chars` characters: timestamps, ids, amounts and prose, with an email,
 * a card number, a phone number or a bearer token on some lines, as tool output carries them.
 */
export function logText(chars: number, random = seededRandom()): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < chars; i++) {
    let extra = "";
    if (i % 10 === 0) extra = ` contact=user${i}@example.com`;
    else if (i % 17 === 0) extra = " card 4111 1111 1111 1111";
    else if (i % 23 === 0) extra = " callback +1 415 555 2671";
    else if (i % 29 === 0) extra = ` auth="Bearer a1b2c3d4e5f6g7h8i9j0${i}"`;
    const line = `2024-05-01T10:${String(i % 60).padStart(2, "0")}:00Z INFO order=ORD-${100_000 + i} amount=${(random() * 1000).toFixed(2)} ${sentence(random, 12)}${extra}\n`;
    lines.push(line);
    size += line.length;
  }
  return lines.join("").slice(0, chars);
}
