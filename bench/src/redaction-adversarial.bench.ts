import { createRedactor } from "@needlework/workflows";
import { defineBenchmark } from "./lib/benchmark.js";

// Adversarial inputs for the secret detectors (issue 16, item 12): text that matches a detector's
// first characters at nearly every position. Every detector must stay linear; the goal is 20 MB/s.
const { redactText } = createRedactor();
const inputs: Record<string, string> = {
  "spaced digits 1 MB": "1 ".repeat(500_000),
  "0 1 grid 300 KB": "0 1 0 1\n".repeat(37_500),
  "card-like 1 MB": "4111 1111 1111 1112 ".repeat(50_000),
  "ssn-like 1 MB": "123-45-678 ".repeat(90_910),
};

export default defineBenchmark({
  name: "redaction-adversarial",
  description:
    "redactText with every default detector over adversarial digit runs (spaced digits, a 0/1 grid, near-cards, near-SSNs): MB/s per input; goal 20 MB/s.",
  options: { time: 1000, iterations: 3 },
  cases() {
    return Object.entries(inputs).map(([name, text]) => ({ name, fn: () => redactText(text), bytes: text.length }));
  },
  notes: () => ({ inputs: Object.keys(inputs) }),
});
