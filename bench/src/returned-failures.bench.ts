import { detectFailure } from "@needlework/core";
import { defineBenchmark } from "./lib/benchmark.js";

// What the default detector of returned failures costs on every call: the success path (values it
// must leave alone) and the values it catches. Each case runs the detector over a loop of calls.

const CALLS = 10_000;
const order = {
  orderId: "ORD-12345",
  status: "shipped",
  carrier: "DHL",
  lines: Array.from({ length: 8 }, (_, i) => ({ sku: `SKU-${i}`, qty: 1, price: 9.99 })),
};
const records = Array.from({ length: 100 }, (_, i) => ({ id: `rec-${i}`, name: `Record ${i}`, score: i / 3 }));
const batch = { results: Array.from({ length: 100 }, (_, i) => ({ id: `c${i}`, status: i === 99 ? 429 : 201 })) };
const large = Array.from({ length: 1000 }, (_, i) => ({ id: i, name: `row ${i}` }));

const loop = (value: unknown, expectFailure: boolean) => {
  if ((detectFailure(value) !== undefined) !== expectFailure) throw new Error("wrong answer");
  return () => {
    let found = 0;
    for (let i = 0; i < CALLS; i++) if (detectFailure(value) !== undefined) found++;
    return found;
  };
};

export default defineBenchmark({
  name: "returned-failures",
  description:
    "Per-call cost of detectFailure, the default check of a tool's returned value for failures (own-property reads of the top level and a bounded scan of one list), on values it leaves alone and on values it catches.",
  options: { time: 500, iterations: 10, warmupTime: 200 },
  cases() {
    return [
      { name: "{ sum } (ok)", fn: loop({ sum: 5 }, false), calls: CALLS },
      { name: "1 KB order (ok)", fn: loop(order, false), calls: CALLS },
      { name: "list of 100 records (ok)", fn: loop(records, false), calls: CALLS },
      { name: "list of 1,000 records (ok)", fn: loop(large, false), calls: CALLS },
      { name: "string (ok)", fn: loop("done", false), calls: CALLS },
      {
        name: "{ ok: false, error } (caught)",
        fn: loop({ ok: false, error: "Contact is locked" }, true),
        calls: CALLS,
      },
      { name: "Response 503 (caught)", fn: loop(new Response(null, { status: 503 }), true), calls: CALLS },
      { name: "batch of 100, one 429 (partial)", fn: loop(batch, true), calls: CALLS },
    ];
  },
});
