import { isToolOutcome, toJsonSafe } from "@needlework/core";
import { BUILT_IN_DETECTORS, type Mark, type TextDetector } from "./redaction-detectors.js";
import { setOwn } from "./json-measure.js";
import { suspectTexts } from "./joined-scan.js";
import { luhnValid } from "./redaction-checks.js";
import { type RedactionOptions, type RedactionPattern, resolveRedactionOptions } from "./redaction.options.js";
import { secretFieldTest } from "./secret-fields.js";
import { SHORTEST_SECRET } from "@needlework/core/internal";

/**
 * Scrubs secrets and personal data from text and from any value; made by {@link createRedactor}.
 *
 * @example
 * ```ts
 * const redactor: Redactor = createRedactor();
 * logger.info(redactor.redactValue(entry));
 * ```
 */
export interface Redactor {
  /** The text with every detected secret replaced by a marker such as `[REDACTED:email]`. */
  redactText(text: string): string;
  /**
   * A scrubbed copy of any value: strings by the detectors, object keys too, and the whole value of
   * secret-named fields (`password`, `apiKey`, ...). Parts with nothing to scrub are shared, and a
   * value with nothing to scrub is returned as it is (same reference). Maps, Sets, Dates and class
   * instances are scrubbed through their JSON form (`toJsonSafe`); cycles and BigInt never throw.
   */
  redactValue(value: unknown): unknown;
}

/**
 * The marker that replaces a secret found by a detector or pattern of this name.
 *
 * @example
 * ```ts
 * redactionMarker("email"); // "[REDACTED:email]"
 * ```
 */
export function redactionMarker(name: string): string {
  return `[REDACTED:${name}]`;
}

const MAX_DEPTH = 64;
/** At most this many keys are remembered as clean by one redactor. */
const MAX_CLEAN_KEYS = 10_000;
const CIRCULAR = Symbol("circular");

function patternDetector(p: RedactionPattern): TextDetector {
  const pattern = p.pattern.global
    ? new RegExp(p.pattern.source, p.pattern.flags)
    : new RegExp(p.pattern.source, `${p.pattern.flags}g`);
  const { replacement } = p;
  return {
    name: p.name,
    label: p.name,
    apply: (text, mark) => {
      pattern.lastIndex = 0;
      return text.replace(pattern, (match: string) => {
        const marked = mark(match);
        if (marked === match || replacement === undefined) return marked;
        return typeof replacement === "function" ? replacement(match) : replacement;
      });
    },
  };
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as unknown;
  // Outcomes inherit their marker from a prototype of their own but are plain data.
  return proto === Object.prototype || proto === null || isToolOutcome(value);
}

/**
 * Builds a {@link Redactor}. Default detectors: private key blocks, JWTs, bearer/basic credentials,
 * API keys (OpenAI/Anthropic `sk-`, Stripe, GitHub, AWS `AKIA`, Slack `xox`, Google, GitLab, npm),
 * `password=`/`token:` style assignments, email addresses, IBANs (mod-97 checked), card numbers
 * (Luhn checked), US SSNs and phone numbers. Every pattern runs in linear time.
 *
 * @example
 * ```ts
 * const { redactText, redactValue } = createRedactor({ allow: ["support@example.com"] });
 * redactText("mail jane@corp.com, key sk-abcdefghijklmnopqrstu123"); // "mail [REDACTED:email], key [REDACTED:api_key]"
 * redactValue({ user: "jane", password: "hunter2" });                  // { user: "jane", password: "[REDACTED:secret]" }
 * ```
 */
export function createRedactor(options: RedactionOptions = {}): Redactor {
  const resolved = resolveRedactionOptions(options);
  const allowedStrings = new Set(resolved.allow.filter((a): a is string => typeof a === "string"));
  const allowedPatterns = resolved.allow.filter((a): a is RegExp => a instanceof RegExp);
  const isAllowed = (secret: string): boolean =>
    allowedStrings.has(secret) ||
    allowedPatterns.some((p) => {
      p.lastIndex = 0;
      return p.test(secret);
    });
  const markFor = (label: string): Mark => {
    const marker = redactionMarker(label);
    return (secret) => (isAllowed(secret) ? secret : marker);
  };
  const builtIns = BUILT_IN_DETECTORS.filter((d) => resolved.detectors.includes(d.name as never));
  const detectors = [...resolved.patterns.map(patternDetector), ...builtIns];
  const steps = detectors.map((d) => ({ apply: d.apply, mark: markFor(d.label) }));
  const customSteps = steps.slice(0, resolved.patterns.length);
  const minLength = resolved.patterns.length > 0 ? 1 : SHORTEST_SECRET;
  const isSecretField = resolved.redactFieldNames ? secretFieldTest(resolved.fieldNames) : () => false;
  const secretMarker = redactionMarker("secret");
  const cardSteps = steps.filter((_, i) => detectors[i]!.name === "card");

  const redactText = (text: string): string => {
    if (text.length < minLength) return text;
    let out = text;
    for (const step of steps) out = step.apply(out, step.mark);
    return out;
  };

  // Card numbers stored as numbers are rendered as digits: check those with enough digits.
  const redactNumber = (value: number | bigint): number | bigint | string => {
    if (cardSteps.length === 0) return value;
    // A negative number renders with a "-": the digits after it are the card number.
    const digits = value.toString().replace(/^-/, "");
    if (digits.length < 13 || digits.length > 19 || !luhnValid(digits)) return value;
    const marked = cardSteps[0]!.mark(digits);
    return marked === digits ? value : marked;
  };

  const secretValue = (value: unknown): unknown => {
    if (value === null || value === undefined || typeof value === "boolean" || value === "") return value;
    if (typeof value === "string" && isAllowed(value)) return value;
    return secretMarker;
  };

  const ancestors: object[] = [];
  // A part with nothing to scrub is shared, but one that reaches back to an ancestor through a cycle
  // would lead a rebuilt copy back to the unscrubbed original: when a cyclic value had something
  // scrubbed, it is walked again with every back-reference replaced by "[Circular]".
  let sawCycle = false;
  let copyCycles = false;

  const walk = (value: unknown, depth: number): unknown => {
    switch (typeof value) {
      case "string":
        return scrubText(value);
      case "number":
        return Number.isInteger(value) ? redactNumber(value) : value;
      case "bigint":
        return redactNumber(value);
      case "object":
        break;
      default:
        return value;
    }
    if (value === null) return value;
    if (ancestors.includes(value)) {
      sawCycle = true;
      return CIRCULAR;
    }
    if (depth >= MAX_DEPTH) return "[MaxDepth]";
    ancestors.push(value);
    try {
      if (Array.isArray(value)) return walkArray(value, depth);
      if (isPlainObject(value) && typeof (value as { toJSON?: unknown }).toJSON !== "function")
        return walkObject(value as Record<string, unknown>, depth);
      // Map, Set, Date, class instances, toJSON: scrub what JSON would show, keep the original if nothing changes.
      const safe = toJsonSafe(value, { maxDepth: MAX_DEPTH - depth });
      const scrubbed = walk(safe, depth);
      return scrubbed === safe ? value : scrubbed;
    } catch {
      return "[Unserializable]";
    } finally {
      ancestors.pop();
    }
  };

  const walkArray = (items: readonly unknown[], depth: number): unknown => {
    let out: unknown[] | undefined;
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      const next = walk(item, depth + 1);
      if (next !== item && (next !== CIRCULAR || copyCycles) && out === undefined) out = items.slice(0, i);
      if (out !== undefined) out.push(next === CIRCULAR ? "[Circular]" : next);
    }
    return out ?? items;
  };

  const walkObject = (obj: Record<string, unknown>, depth: number): unknown => {
    const keys = Object.keys(obj);
    const pairs: [string, unknown][] = [];
    let changed = false;
    for (const key of keys) {
      let item: unknown;
      try {
        item = obj[key];
      } catch {
        item = "[Unreadable]";
        changed = true;
      }
      const next = isSecretField(key) ? secretValue(item) : walk(item, depth + 1);
      const newKey = scrubText(key);
      if (next !== item && (next !== CIRCULAR || copyCycles)) changed = true;
      if (newKey !== key) changed = true;
      pairs.push([newKey, next]);
    }
    if (!changed) return obj;
    const out: Record<string, unknown> = {};
    for (const [key, item] of pairs) {
      let name = key;
      for (let n = 2; Object.hasOwn(out, name); n++) name = `${key}#${n}`;
      setOwn(out, name, item === CIRCULAR ? "[Circular]" : item);
    }
    return out;
  };

  const redactAll = (value: unknown): unknown => {
    ancestors.length = 0;
    sawCycle = false;
    const scrubbed = walk(value, 0);
    if (scrubbed === value || !sawCycle) return scrubbed;
    copyCycles = true;
    try {
      ancestors.length = 0;
      return walk(value, 0);
    } finally {
      copyCycles = false;
    }
  };

  // One scan per value (see joined-scan.ts): a plain JSON value's strings and not yet known keys are
  // gathered, the detectors run once over all of them, and only the strings they found something in
  // are redacted one by one, by the walk above. A value with none is returned without a walk.
  let scrubText = redactText; // what the walk does to a string or key
  let walkNeeded = false; // a secret-named field or a card number stored as a number
  const cleanKeys = new Set<string>(); // keys found clean: result keys repeat across calls and items
  const seen: object[] = [];

  /** Gathers the texts of a plain JSON value; false when it is not one (the walk then scans each). */
  const collect = (v: unknown, depth: number, texts: Set<string>, newKeys: string[]): boolean => {
    switch (typeof v) {
      case "string":
        if (v.length >= minLength) texts.add(v);
        return true;
      case "number":
        if ((v >= 1e12 || v <= -1e12) && Number.isInteger(v) && redactNumber(v) !== v) walkNeeded = true;
        return true;
      case "object":
        break;
      case "bigint":
        return false;
      default:
        return true; // booleans, and what the walk keeps as it is
    }
    if (v === null) return true;
    if (depth >= MAX_DEPTH || seen.includes(v)) return false;
    seen.push(v);
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) if (!collect(v[i], depth + 1, texts, newKeys)) return false;
    } else {
      if (!isPlainObject(v) || typeof (v as { toJSON?: unknown }).toJSON === "function") return false;
      for (const key of Object.keys(v)) {
        if (key.length >= minLength && !cleanKeys.has(key) && !texts.has(key)) {
          texts.add(key);
          newKeys.push(key);
        }
        if (isSecretField(key))
          walkNeeded = true; // its whole value goes: nothing in it to scan
        else if (!collect((v as Record<string, unknown>)[key], depth + 1, texts, newKeys)) return false;
      }
    }
    seen.pop();
    return true;
  };

  const redactValue = (value: unknown): unknown => {
    const texts = new Set<string>();
    const newKeys: string[] = [];
    let plain = false;
    walkNeeded = false;
    seen.length = 0;
    try {
      plain = collect(value, 0, texts, newKeys);
    } catch {
      // a throwing getter or proxy trap: the walk handles it
    }
    if (!plain) return redactAll(value);
    const list = [...texts];
    const found = suspectTexts(list, builtIns);
    if (found === undefined) return redactAll(value);
    const suspects = new Set(found);
    for (const text of customSteps.length > 0 ? list : [])
      if (customSteps.some((step) => step.apply(text, step.mark) !== text)) suspects.add(text);
    for (const key of newKeys) if (!suspects.has(key) && cleanKeys.size < MAX_CLEAN_KEYS) cleanKeys.add(key);
    if (suspects.size === 0 && !walkNeeded) return value;
    // A text the scan did not see (a getter that answers differently the second time) is scanned alone.
    scrubText = (text) =>
      suspects.has(text) || !(texts.has(text) || cleanKeys.has(text) || text.length < minLength)
        ? redactText(text)
        : text;
    try {
      return redactAll(value);
    } finally {
      scrubText = redactText;
    }
  };

  return { redactText, redactValue };
}
