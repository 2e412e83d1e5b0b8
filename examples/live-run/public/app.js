// The live run page: one EventSource, one handler per AgentEvent type. No framework, no build.
const $ = (id) => document.getElementById(id);
const turns = new Map();
const calls = new Map();
let current;

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function setStatus(text, className) {
  $("status").textContent = text;
  $("status").className = `status ${className}`;
}

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
    $("turns").append(section);
    turn = { section, text, list, usage: title.lastChild };
    turns.set(number, turn);
  }
  return turn;
}

function describeArguments(args) {
  const value = typeof args === "string" ? JSON.parse(args) : args;
  return Object.entries(value)
    .map(([k, v]) => `${k}: ${typeof v === "object" ? JSON.stringify(v) : v}`)
    .join(", ");
}

const handlers = {
  "run-start": (e) => {
    $("run-id").textContent = e.runId;
    setStatus("running", "running");
  },
  "turn-start": (e) => {
    current = turnOf(e.turn);
    current.text.classList.add("writing");
  },
  "text-delta": (e) => {
    turnOf(e.turn).text.append(e.delta);
  },
  "tool-call": (e) => {
    const item = el("li", "call running");
    item.dataset.callId = e.callId;
    const state = el("span", "state", "running…");
    const detail = el("span", "detail");
    let args = "";
    try {
      args = describeArguments(e.arguments);
    } catch {
      args = String(e.arguments);
    }
    item.append(el("span", "tool", e.tool), el("span", "args", args), state, detail);
    turnOf(e.turn).list.append(item);
    calls.set(e.callId, { item, state, detail, retries: [] });
  },
  "tool-retry": (e) => {
    const call = calls.get(e.callId);
    if (!call) return;
    call.retries.push(e.errorCode ?? "error");
    call.item.className = "call retried";
    call.state.textContent = `retrying (attempt ${e.attempt + 1})`;
    call.detail.textContent = `attempt ${e.attempt} failed with ${e.errorCode ?? "an error"}; retrying in ${e.delayMs} ms`;
  },
  "tool-result": (e) => {
    const call = calls.get(e.callId);
    if (!call) return;
    const { outcome } = e;
    call.item.dataset.status = outcome.status;
    if (outcome.status === "ok" && call.retries.length > 0) {
      call.item.className = "call retried";
      call.state.textContent = `ok after ${call.retries.length} ${call.retries.length === 1 ? "retry" : "retries"}`;
      call.detail.textContent = `retried after ${call.retries.join(", ")}`;
    } else if (outcome.status === "ok" || outcome.status === "partial") {
      call.item.className = "call ok";
      call.state.textContent = outcome.status;
    } else {
      call.item.className = "call error";
      call.item.dataset.errorCode = outcome.errorCode ?? "";
      call.state.textContent = `${outcome.status} ${outcome.errorCode ?? ""}`.trim();
      call.detail.textContent = [outcome.message, outcome.suggestion].filter(Boolean).join(" ");
    }
  },
  "run-health": (e) => {
    const h = e.health;
    const note = el(
      "p",
      "note health",
      `run_health: ${h.tools_ok} ok, ${h.tools_failed} failed, ${h.tools_not_called} not called${h.blocking_failure ? " · blocking failure" : ""}`,
    );
    turnOf(e.turn).section.append(note);
  },
  correction: (e) => {
    turnOf(e.turn).section.append(el("p", "note correction", `correction: ${e.reason}`));
  },
  "approval-required": (e) => {
    $("turns").append(el("p", "note correction", `awaiting approval for ${e.pending.map((p) => p.tool).join(", ")}`));
  },
  "turn-end": (e) => {
    const turn = turnOf(e.turn);
    turn.text.classList.remove("writing");
    if (e.usage) turn.usage.textContent = `${e.usage.totalTokens} tokens`;
  },
  "run-end": (e, source) => {
    source.close();
    // The browser-safe run-end: runId, status, text, health, usage (never the conversation).
    const result = e;
    setStatus(result.status, result.status);
    const h = result.health;
    $("final-status").textContent = result.status;
    $("final-status").dataset.status = result.status;
    $("final-health").textContent =
      `${h.tools_ok} tool calls ok, ${h.tools_failed} failed${h.blocking_failure ? ", a failure is still blocking" : ""}`;
    $("final-answer").textContent = result.text;
    $("final").hidden = false;
  },
  "run-error": (e, source) => {
    source.close();
    setStatus(`failed: ${e.code}`, "failed");
    $("final-status").textContent = `failed (${e.code})`;
    $("final-status").dataset.status = "failed";
    $("final-answer").textContent = e.message;
    $("final").hidden = false;
  },
};

const source = new EventSource("/events");
for (const [type, handle] of Object.entries(handlers)) {
  source.addEventListener(type, (message) => handle(JSON.parse(message.data), source));
}
// The server ends the stream after run-end; a connection lost before that is reported, not retried.
source.addEventListener("error", () => {
  if ($("final").hidden) {
    source.close();
    setStatus("connection lost", "failed");
  }
});
