import { countTokens, truncateValue } from "@needlework/workflows/shaping";
import { defineBenchmark } from "./lib/benchmark.js";
import { logText, orderRecords } from "./lib/inputs.js";

const MAX_TOKENS = 2000;
const ONE_MB = 1_000_000;

const records = orderRecords(ONE_MB);
const recordsJson = JSON.stringify(records);
const text = logText(ONE_MB);
const facts: Record<string, unknown> = {};

/** Truncates once outside the measurement and checks the result, so a fast wrong answer cannot pass. */
function check(label: string, value: unknown): void {
  const result = truncateValue(value, { maxTokens: MAX_TOKENS });
  const kept = JSON.stringify(result.value);
  JSON.parse(kept);
  const tokens = countTokens(kept);
  if (!result.truncated || tokens > MAX_TOKENS || tokens !== result.keptTokens)
    throw new Error(`${label}: kept ${tokens} tokens (reported ${result.keptTokens})`);
  facts[label] = {
    originalTokens: result.originalTokens,
    originalTokensEstimated: result.originalTokensEstimated,
    keptTokens: result.keptTokens,
    keptChars: kept.length,
  };
}

export default defineBenchmark({
  name: "shaping-truncation",
  description: `truncateValue to ${MAX_TOKENS} tokens (o200k_base) of a 1 MB result: an array of order records, the same as a JSON string, and 1 MB of plain text. JSON.stringify of the records is the reference cost of touching 1 MB once.`,
  options: { time: 2000, iterations: 50 },
  cases() {
    check("records", records);
    check("json string", recordsJson);
    check("plain text", text);
    return [
      { name: "JSON.stringify 1 MB records (reference)", fn: () => JSON.stringify(records), bytes: recordsJson.length },
      {
        name: "truncateValue 1 MB records → 2000 tokens",
        fn: () => truncateValue(records, { maxTokens: MAX_TOKENS }),
        bytes: recordsJson.length,
      },
      {
        name: "truncateValue 1 MB JSON string → 2000 tokens",
        fn: () => truncateValue(recordsJson, { maxTokens: MAX_TOKENS }),
        bytes: recordsJson.length,
      },
      {
        name: "truncateValue 1 MB plain text → 2000 tokens",
        fn: () => truncateValue(text, { maxTokens: MAX_TOKENS }),
        bytes: text.length,
      },
    ];
  },
  notes: () => ({ inputBytes: recordsJson.length, records: records.length, maxTokens: MAX_TOKENS, results: facts }),
});
