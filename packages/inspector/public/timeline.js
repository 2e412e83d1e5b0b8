// A run's timeline, drawn from AgentEvents: turns, each tool call coloured by its outcome, retries,
// run_health, corrections, pending approvals and the result. Shared by the live run page (events as
// they stream) and the run inspector (events rebuilt from the journal). Every value is set as text
// (textContent), never as HTML: tool data cannot inject markup.

/** An element with a class and its text (set as text, never parsed as HTML). */
export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = String(text);
  return node;
}

function describeArguments(args) {
  let value = args;
  if (typeof args === "string") {
    try {
      value = JSON.parse(args);
    } catch {
      return args;
    }
  }
  if (value === null || typeof value !== "object") return String(value);
  return Object.entries(value)
    .map(([k, v]) => `${k}: ${typeof v === "object" ? JSON.stringify(v) : v}`)
    .join(", ");
}

/** `1 turn`, `2 turns`. */
export const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;

/** A duration in human units: `29.6 µs`, `1.9 ms`, `2.3 s`, `1.5 min` (never `0.0296139 ms`). */
export function duration(ms) {
  if (typeof ms !== "number" || !Number.isFinite(ms) || ms < 0) return "";
  const [value, unit] =
    ms < 1 ? [ms * 1000, "µs"] : ms < 1000 ? [ms, "ms"] : ms < 60_000 ? [ms / 1000, "s"] : [ms / 60_000, "min"];
  return `${value >= 100 ? Math.round(value) : Number(value.toFixed(1))} ${unit}`;
}

/**
 * Draws events into `parts.turns` and the result into `parts.final` (`{ section, status, health, answer }`).
 * `onStatus(text, className)` hears the run's status. Returns `{ handle(event), reset() }`.
 */
export function createTimeline(parts, onStatus = () => {}) {
  const turns = new Map();
  const calls = new Map();

  function turnOf(number) {
    let turn = turns.get(number);
    if (!turn) {
      const section = el("section", "turn");
      section.dataset.turn = String(number);
      const title = el("h2");
      title.append(el("span", "", `Turn ${number}`), el("span", "usage"));
      const text = el("div", "text");
      const list = el("ul", "calls");
      section.append(title, text, list);
      parts.turns.append(section);
      turn = { section, text, list, usage: title.lastChild };
      turns.set(number, turn);
    }
    return turn;
  }

  function showResult(status, health, answer) {
    parts.final.status.textContent = status;
    parts.final.status.dataset.status = status;
    parts.final.health.textContent = health
      ? `${plural(health.tools_ok, "tool call", "tool calls")} ok, ${health.tools_failed} failed, ${health.tools_not_called ?? 0} not called${health.blocking_failure ? ", a failure is still blocking" : ""}`
      : "";
    parts.final.answer.textContent = answer ?? "";
    parts.final.section.hidden = false;
  }

  const handlers = {
    "run-start": () => onStatus("running", "running"),
    "turn-start": (e) => turnOf(e.turn).text.classList.add("writing"),
    "text-delta": (e) => turnOf(e.turn).text.append(e.delta),
    "tool-call": (e) => {
      const item = el("li", "call running");
      item.dataset.callId = e.callId;
      const state = el("span", "state", "running…");
      const detail = el("span", "detail");
      item.append(el("span", "tool", e.tool), el("span", "args", describeArguments(e.arguments)), state, detail);
      turnOf(e.turn).list.append(item);
      calls.set(e.callId, { item, state, detail, retries: [] });
    },
    "tool-retry": (e) => {
      const call = calls.get(e.callId);
      if (!call) return;
      call.retries.push(e.errorCode ?? "error");
      call.item.className = "call retried";
      call.state.textContent = `retrying (attempt ${e.attempt + 1})`;
      call.detail.textContent = `attempt ${e.attempt} failed with ${e.errorCode ?? "an error"}; retrying in ${duration(e.delayMs)}`;
    },
    "tool-result": (e) => {
      const call = calls.get(e.callId);
      if (!call) return;
      const { outcome } = e;
      call.item.dataset.status = outcome.status;
      // A remote tool's server, beside its name (from the journal, or live from the outcome's metadata).
      const server = outcome.server ?? outcome.metadata?.server;
      if (typeof server === "string" && !call.item.querySelector(".server")) {
        call.item.dataset.server = server;
        call.item.querySelector(".tool")?.after(el("span", "server", `on ${server}`));
      }
      // Live, retries arrive as events; from the journal, only the attempt count is known.
      const retries = call.retries.length || Math.max(0, (outcome.attempts ?? 1) - 1);
      if (outcome.status === "ok" && retries > 0) {
        call.item.className = "call retried";
        call.state.textContent = `ok after ${plural(retries, "retry", "retries")}`;
        // Live, the retries' codes; from the journal, each failed attempt's code.
        const codes = call.retries.length > 0 ? call.retries : (outcome.attemptErrors ?? []);
        call.detail.textContent =
          codes.length > 0
            ? `retried after ${codes.join(", ")}`
            : typeof outcome.latencyMs === "number"
              ? ""
              : `${outcome.attempts} attempts`;
      } else if (outcome.status === "ok" || outcome.status === "partial") {
        call.item.className = "call ok";
        call.state.textContent = outcome.status;
      } else {
        call.item.className = "call error";
        call.item.dataset.errorCode = outcome.errorCode ?? "";
        call.state.textContent = `${outcome.status} ${outcome.errorCode ?? ""}`.trim();
        // The tool's message and its suggestion: two lines, never run together.
        call.detail.replaceChildren();
        if (outcome.message) call.detail.append(el("span", "message", outcome.message));
        if (outcome.suggestion) call.detail.append(el("span", "suggestion", `Suggestion: ${outcome.suggestion}`));
        if ((outcome.attempts ?? 1) > 1) {
          const earlier = outcome.attemptErrors ?? [];
          call.detail.append(
            el(
              "span",
              "attempts",
              earlier.length > 0
                ? `${outcome.attempts} attempts: ${[...earlier, outcome.errorCode ?? outcome.status].join(", ")}`
                : `${outcome.attempts} attempts, the last failed with ${outcome.errorCode ?? outcome.status}`,
            ),
          );
        }
      }
      // Latency and attempts, from the journal's metadata (absent live until the call settles).
      if (typeof outcome.latencyMs === "number") {
        call.item.dataset.latencyMs = String(outcome.latencyMs);
        call.item.append(
          el(
            "span",
            "timing",
            `${duration(outcome.latencyMs)} · ${plural(outcome.attempts ?? 1, "attempt", "attempts")}`,
          ),
        );
      }
      if (typeof e.formatted === "string") {
        const details = el("details", "formatted");
        details.append(el("summary", "", "as the model read it"), el("pre", "", e.formatted));
        call.item.append(details);
      }
    },
    "run-health": (e) => {
      const h = e.health;
      const note = el(
        "p",
        "note health",
        `run_health${h.so_far ? " (so far)" : ""}: ${h.tools_ok} ok, ${h.tools_failed} failed, ${h.tools_not_called} not called${h.blocking_failure ? " · blocking failure" : ""}`,
      );
      turnOf(e.turn).section.append(note);
    },
    correction: (e) => turnOf(e.turn).section.append(el("p", "note correction", `correction: ${e.reason}`)),
    "approval-required": (e) => {
      for (const pending of e.pending) {
        const call = calls.get(pending.callId);
        if (!call) continue;
        call.item.className = "call pending";
        call.state.textContent = "awaiting approval";
      }
      parts.turns.append(el("p", "note approval", `awaiting approval for ${e.pending.map((p) => p.tool).join(", ")}`));
    },
    "turn-end": (e) => {
      const turn = turnOf(e.turn);
      turn.text.classList.remove("writing");
      if (e.usage) turn.usage.textContent = `${e.usage.totalTokens} tokens`;
    },
    // The browser-safe run-end: runId, status, text, health, usage (never the conversation).
    "run-end": (e) => {
      onStatus(e.status, e.status);
      showResult(e.status, e.health, e.text);
    },
    "run-error": (e) => {
      onStatus(`failed: ${e.code}`, "failed");
      showResult(`failed (${e.code})`, undefined, e.message);
      parts.final.status.dataset.status = "failed";
    },
  };

  return {
    handle(event) {
      handlers[event.type]?.(event);
    },
    reset() {
      turns.clear();
      calls.clear();
      parts.turns.replaceChildren();
      parts.final.section.hidden = true;
    },
  };
}
