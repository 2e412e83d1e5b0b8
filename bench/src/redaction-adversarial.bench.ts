import { createRedactor } from "@needlework/workflows/shaping";
import { defineBenchmark, type Goal } from "./lib/benchmark.js";

// Adversarial inputs for the secret detectors (issue 16, item 12): text that matches a detector's
// first characters at nearly every position. Every detector must stay linear; the goal is 20 MB/s
// for each input, measured through the whole default redactor.
const GOAL_MB_S = 20;
const MB = 1_000_000;
const { redactText } = createRedactor();

/** `unit` repeated to about `bytes` characters. */
const fill = (unit: string, bytes = MB): string => unit.repeat(Math.ceil(bytes / unit.length));

/** Input name → text, grouped by the detector each one targets. */
const inputs: Record<string, string> = {
  // private_key
  "BEGIN headers without END": fill("-----BEGIN PRIVATE KEY-----"),
  "endless key body": `-----BEGIN RSA PRIVATE KEY-----\n${fill("QUJD")}`,
  // jwt
  "eyJ run": fill("eyJ"),
  "almost-JWTs (no dots)": fill(` eyJ${"a".repeat(200)}`),
  "one-dot JWTs": fill(` eyJ${"a".repeat(50)}.`),
  // bearer_token
  "Bearer without token": fill("Bearer "),
  "Bearer + short word": fill("Bearer abc "),
  // api_key
  "sk- prefixes": fill("sk-"),
  "short sk- keys": fill(" sk-abcdefghij"),
  // secret_assignment
  "password= without value": fill("password="),
  "password=password=": fill("password=x "),
  // email
  "@ run": fill("@"),
  "a@ run": fill("a@"),
  "@ and dots": fill("@."),
  "x@ then dotted labels": `x@${fill("a.")}`,
  // iban
  "DE89 repeats": fill("DE89 "),
  "IBAN-like digits": `DE89${fill("1")}`,
  "upper-case runs": fill("AB12"),
  // card
  "near-cards": fill("4111 1111 1111 1112 "),
  "near-cards, dashes": fill("4111-1111-1111-1112-"),
  "16-digit non-cards": fill("4111111111111112 "),
  "long digit run": fill("1"),
  // ssn
  "near-SSNs": fill("123-45-678 "),
  "digits and dashes": fill("12-"),
  // phone
  "spaced digits": fill("1 "),
  "0 1 grid": fill("0 1 0 1\n"),
  "+1 repeats": fill("+1 "),
  "(415) repeats": fill("(415) "),
  "dotted digits": fill("1."),
  "order numbers": fill("order 4155552671, "),
};

export default defineBenchmark({
  name: "redaction-adversarial",
  description: `createRedactor().redactText (every default detector) over adversarial inputs, about 1 MB each, at least one per detector: MB/s per input; goal ${GOAL_MB_S} MB/s each.`,
  options: { time: 500, iterations: 3 },
  cases() {
    return Object.entries(inputs).map(([name, text]) => ({ name, fn: () => redactText(text), bytes: text.length }));
  },
  goals(results) {
    return Object.entries(inputs).map(([name, text]): Goal => {
      const ms = results.get(name)?.medianMs ?? Number.POSITIVE_INFINITY;
      const mbPerSecond = text.length / MB / (ms / 1000);
      return {
        goal: `${name} at least ${GOAL_MB_S} MB/s`,
        measured: `${mbPerSecond.toFixed(1)} MB/s`,
        met: mbPerSecond >= GOAL_MB_S,
      };
    });
  },
  notes: () => ({ inputs: Object.fromEntries(Object.entries(inputs).map(([name, text]) => [name, text.length])) }),
});
