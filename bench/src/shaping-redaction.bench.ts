import { createRedactor } from "@needlework/workflows/shaping";
import { defineBenchmark } from "./lib/benchmark.js";
import { logText, orderRecords } from "./lib/inputs.js";

const SIZES = [100_000, 1_000_000, 10_000_000];
const { redactText, redactValue } = createRedactor();
const texts = SIZES.map((size) => logText(size));
const records = orderRecords(1_000_000).map((r, i) => (i % 10 === 0 ? { ...r, email: `user${i}@example.com` } : r));
const facts: Record<string, unknown> = {};

function label(bytes: number): string {
  return bytes >= 1_000_000 ? `${bytes / 1_000_000} MB` : `${bytes / 1_000} KB`;
}

export default defineBenchmark({
  name: "shaping-redaction",
  description:
    "redactText with every default detector over log-like text (ids, amounts, timestamps, prose; an email, card, phone or bearer token on some lines) at 100 KB, 1 MB and 10 MB: MB/s should stay flat (linear cost). Plus redactValue over 1 MB of order records.",
  options: { time: 2000, iterations: 10 },
  cases() {
    for (const text of texts) {
      const out = redactText(text);
      const found = out.match(/\[REDACTED:[a-z_]+\]/g)?.length ?? 0;
      if (found === 0 || out.includes("4111 1111 1111 1111") || /user\d+@example\.com/.test(out))
        throw new Error("redaction missed a planted secret");
      facts[label(text.length)] = { redactions: found };
    }
    const scrubbed = JSON.stringify(redactValue(records));
    if (/user\d+@example\.com/.test(scrubbed)) throw new Error("redactValue missed an email");
    return [
      ...texts.map((text) => ({
        name: `redactText ${label(text.length)}`,
        fn: () => redactText(text),
        bytes: text.length,
      })),
      { name: "redactValue 1 MB records", fn: () => redactValue(records), bytes: JSON.stringify(records).length },
    ];
  },
  notes: () => ({ sizes: SIZES, results: facts }),
});
