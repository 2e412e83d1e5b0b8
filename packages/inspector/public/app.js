// The run inspector's page: routes #/runs, #/runs/<id>, #/dead-letters, #/health (or the same paths)
// over the JSON API, and redraws when the server pushes a change (no polling). Every value is written
// as text (textContent), never as HTML.
import { createTimeline, duration, el, plural } from "/timeline.js";
import { drawCancel } from "/cancel.js";

const $ = (id) => document.getElementById(id);

// The printed URL carries a token in its fragment (never sent to a server or a log): keep it for this tab.
if (location.hash.startsWith("#token=")) {
  sessionStorage.setItem("needlework-inspector-token", decodeURIComponent(location.hash.slice("#token=".length)));
  history.replaceState(null, "", "#/runs");
}
const token = sessionStorage.getItem("needlework-inspector-token");
const auth = () => (token ? { authorization: `Bearer ${token}` } : {});

// Who acts: a name this browser remembers, sent with every action and journaled with it.
$("operator").value = localStorage.getItem("needlework-inspector-operator") ?? "";
$("operator").addEventListener("change", () =>
  localStorage.setItem("needlework-inspector-operator", $("operator").value.trim()),
);

async function api(path, init = {}) {
  const response = await fetch(path, { ...init, headers: { ...(init.headers ?? {}), ...auth() } });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) {
    const error = new Error(body.error ?? `HTTP ${response.status}`);
    error.code = body.code;
    error.status = response.status;
    error.body = body;
    throw error;
  }
  return body;
}

/** An action: only from this page (the custom header), as JSON, with who acts (a name is asked for first). */
async function act(path, body) {
  if ($("operator").value.trim() === "") {
    $("operator").focus();
    const error = new Error("Enter your name in “You are” first: every action is journaled with who took it.");
    error.code = "OPERATOR_REQUIRED";
    throw error;
  }
  return api(path, {
    method: "POST",
    headers: {
      "x-needlework-inspector": "1",
      "content-type": "application/json",
      "x-needlework-operator": $("operator").value.trim(),
    },
    body: JSON.stringify(body ?? {}),
  });
}

function link(href, text) {
  const a = el("a", "", text);
  a.href = href;
  return a;
}

const when = (iso) => (iso ? new Date(iso).toLocaleString() : "");
const pretty = (value) => (typeof value === "string" ? value : JSON.stringify(value, null, 2));
/** A <pre> of JSON, pretty, with a Copy button. */
function jsonBlock(pre, value) {
  pre.textContent = pretty(value);
  const holder = pre.parentElement;
  if (holder && !holder.querySelector(":scope > button.copy")) {
    const copy = el("button", "copy", "Copy");
    copy.type = "button";
    copy.onclick = () => navigator.clipboard?.writeText(pre.textContent).then(() => (copy.textContent = "Copied"));
    holder.append(copy);
  }
}

/** What an action did, said after the page is redrawn (cleared by the next action or view). */
function showNotice(text) {
  $("notice").textContent = text ?? "";
  $("notice").hidden = !text;
}

/** A replay's answer in words: the call's new outcome, and where its letter stands. */
function replayNotice(answer) {
  const outcome = answer.outcome;
  const what = outcome ? [outcome.status, outcome.errorCode].filter(Boolean).join(" ") : "";
  return answer.replayed
    ? `Replayed: the call returned ${what || "ok"}; the letter is closed.`
    : `Replay failed again: the call returned ${what || "no outcome"}; the letter stays open.`;
}

function showProblem(error) {
  // An action's refusal (it has a code) says why as it is; only a failed read is "Could not load".
  const said = error?.code !== undefined || error?.status === undefined;
  $("problem").textContent = error ? (said ? error.message : `Could not load: ${error.message}`) : "";
  $("problem").hidden = !error;
}

const VIEWS = ["runs-view", "run-view", "letters-view", "health-view"];
function show(view) {
  for (const id of VIEWS) $(id).hidden = id !== view;
  $("nav-runs").classList.toggle("active", view === "runs-view" || view === "run-view");
  $("nav-letters").classList.toggle("active", view === "letters-view");
  $("nav-health").classList.toggle("active", view === "health-view");
}

// ---------------------------------------------------------------- server push
// EventSource cannot send the bearer token: the stream is read with fetch.
let live;
function subscribe(query, onChange) {
  live?.abort();
  const controller = new AbortController();
  live = controller;
  let first = true;
  const connect = async () => {
    const response = await fetch(`/api/events?${query}`, { headers: auth(), signal: controller.signal });
    if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
    $("live").classList.add("on");
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      for (let at = buffer.indexOf("\n\n"); at >= 0; at = buffer.indexOf("\n\n")) {
        const block = buffer.slice(0, at);
        buffer = buffer.slice(at + 2);
        const event = /^event: ?(.*)$/m.exec(block)?.[1];
        if (event === "problem") continue;
        // The first event says what is there now: already drawn.
        if (first) first = false;
        else onChange(event);
      }
    }
  };
  const loop = () =>
    connect()
      .catch(() => undefined)
      .finally(() => {
        $("live").classList.remove("on");
        if (!controller.signal.aborted) setTimeout(loop, 2000);
      });
  loop();
}
function unsubscribe() {
  live?.abort();
  live = undefined;
  $("live").classList.remove("on");
}

/** Marks a redraw done (tests and scripts wait for `data-drawn` to change). */
let draws = 0;
const drawn = () => {
  document.body.dataset.drawn = String(++draws);
};

// ---------------------------------------------------------------- runs
const cursors = [];
const FILTERS = ["q", "agent", "status", "code", "from", "to"];
async function showRuns(params, stale) {
  show("runs-view");
  for (const key of FILTERS) $(`filter-${key}`).value = params.get(key) ?? "";
  const query = new URLSearchParams();
  for (const key of [...FILTERS, "cursor"]) {
    const value = params.get(key);
    if (!value) continue;
    query.set(key, key === "from" || key === "to" ? new Date(value).toISOString() : value);
  }
  const page = await api(`/api/runs?${query}`);
  if (stale()) return;
  const body = $("runs").tBodies[0];
  body.replaceChildren(
    ...page.runs.map((run) => {
      const row = el("tr");
      row.dataset.runId = run.runId;
      const stats = run.stats ?? {};
      const codes = el("span", "codes", (stats.codes ?? []).join(", "));
      const cells = [
        when(run.startedAt),
        link(`#/runs/${encodeURIComponent(run.runId)}`, run.runId),
        run.agent,
        el("span", `status ${run.status}`, run.status),
        duration(stats.durationMs),
        stats.turns ?? "",
        stats.calls ?? "",
        stats.failures ?? "",
        codes,
        // A paused run has not ended: it waits for a person.
        run.status === "awaiting_approval" ? "" : when(run.endedAt),
      ];
      for (const cell of cells) {
        const td = el("td");
        td.append(cell);
        row.append(td);
      }
      return row;
    }),
  );
  $("runs-empty").hidden = page.runs.length > 0;
  $("runs-scanned").hidden = page.scanned === undefined;
  $("runs-scanned").textContent =
    page.scanned === undefined
      ? ""
      : `Looked at ${plural(page.scanned, "run", "runs")}${page.scannedThrough ? ` (back to ${when(page.scannedThrough)})` : ""}: Older → looks further.`;
  $("runs-older").hidden = !page.next;
  $("runs-older").onclick = () => {
    cursors.push(params.get("cursor") ?? "");
    go("runs", { ...Object.fromEntries(params), cursor: page.next });
  };
  $("runs-newer").hidden = !params.get("cursor");
  $("runs-newer").onclick = () => go("runs", { ...Object.fromEntries(params), cursor: cursors.pop() ?? "" });
  return params.get("cursor")
    ? undefined
    : `list=${encodeURIComponent(new URLSearchParams({ status: params.get("status") ?? "" }))}`;
}

// ---------------------------------------------------------------- one run
const timeline = createTimeline(
  {
    turns: $("turns"),
    final: { section: $("final"), status: $("final-status"), health: $("final-health"), answer: $("final-answer") },
  },
  (text, className) => {
    $("status").textContent = text;
    $("status").className = `status ${className}`;
  },
);

function drawApprovals(runId, pending, actable) {
  const box = $("act-approve");
  box.hidden = pending.length === 0;
  const list = $("approvals");
  list.replaceChildren(
    ...pending.map((call) => {
      const item = el("li", "approval");
      item.dataset.callId = call.callId;
      const args = el("pre", "json");
      args.textContent = pretty(call.arguments);
      const choice = el("p", "choice");
      for (const decision of ["approved", "denied"]) {
        const label = el("label");
        const radio = el("input");
        radio.type = "radio";
        radio.name = `decision-${call.callId}`;
        radio.value = decision;
        radio.disabled = !actable;
        label.append(radio, ` ${decision === "approved" ? "Approve" : "Deny"}`);
        choice.append(label);
      }
      item.append(el("strong", "tool", call.tool), el("span", "call-id", ` (${call.callId})`), args, choice);
      return item;
    }),
  );
  $("approve-submit").disabled = !actable;
  $("approve-submit").title = actable
    ? ""
    : "Start the inspector with this run's agent (startInspector({ agents })) to act.";
  $("approve-submit").onclick = async () => {
    const decisions = {};
    for (const call of pending) {
      const chosen = list.querySelector(`input[name="decision-${CSS.escape(call.callId)}"]:checked`);
      if (!chosen) {
        showProblem(new Error(`Decide ${call.tool} (${call.callId}) first.`));
        return;
      }
      decisions[call.callId] = chosen.value;
    }
    $("approve-submit").disabled = true;
    try {
      await act(`/api/runs/${encodeURIComponent(runId)}/decisions`, { decisions });
      await refresh();
    } catch (error) {
      $("approve-submit").disabled = false;
      showProblem(error);
    }
  };
}

function drawActions(records) {
  $("run-actions").hidden = records.length === 0;
  $("actions").tBodies[0].replaceChildren(
    ...records.map((r) => {
      const row = el("tr", `action ${r.action}`);
      for (const cell of [when(r.at), r.by, r.action, r.callId ?? "", r.result]) row.append(el("td", "", cell));
      return row;
    }),
  );
}

async function showRun(runId, stale) {
  show("run-view");
  let view;
  try {
    view = await api(`/api/runs/${encodeURIComponent(runId)}`);
  } catch (error) {
    // An unknown id: the error alone, never above an empty header.
    if (!stale()) $("run-view").hidden = true;
    throw error;
  }
  if (stale()) return;
  const { run, events, stats } = view;
  $("run-id").textContent = run.runId;
  $("run-agent").textContent = run.agent;
  $("run-started").textContent = when(run.startedAt);
  const paused = run.status === "awaiting_approval";
  $("run-ended").textContent = run.endedAt ? `· ${paused ? "paused" : "ended"} ${when(run.endedAt)}` : "";
  $("run-figures").textContent =
    `· ${duration(stats.durationMs)} · ${plural(stats.turns, "turn", "turns")} · ${plural(stats.calls, "call", "calls")} · ${stats.failures} failed` +
    (stats.notCalled > 0 ? ` · ${stats.notCalled} not called` : "");
  jsonBlock($("run-instructions"), run.instructions);
  jsonBlock($("run-input"), run.input);
  const reason = $("run-reason");
  reason.replaceChildren();
  if (run.reason) {
    reason.append(el("span", "", `Stopped: ${run.reason}`));
    for (const letter of view.deadLetters ?? []) {
      reason.append(" ");
      reason.append(
        link(
          `#/dead-letters?run=${encodeURIComponent(run.runId)}`,
          `dead letter ${letter.id} (${letter.tool}, ${letter.errorCode})`,
        ),
      );
    }
  }
  reason.hidden = !run.reason;
  timeline.reset();
  for (const event of events) timeline.handle(event);
  $("status").textContent = run.status;
  $("status").className = `status ${run.status}`;
  // An interrupted run's unsettled call is not running: its process is gone.
  if (run.status === "interrupted")
    for (const state of document.querySelectorAll("#turns .call.running .state"))
      state.textContent = "no outcome (interrupted)";
  // A paused run has no result yet: the approval panel says what it waits for.
  if (paused) $("final").hidden = true;
  const pending = events.find((e) => e.type === "approval-required")?.pending ?? [];
  drawApprovals(run.runId, paused ? pending : [], view.actable);
  drawCancel(view, { $, el, act, refresh, showNotice, showProblem });
  $("act-resume").hidden = run.status !== "interrupted";
  $("resume-run").disabled = !view.actable;
  $("resume-run").onclick = async () => {
    $("resume-run").disabled = true;
    try {
      await act(`/api/runs/${encodeURIComponent(run.runId)}/resume`);
      await refresh();
    } catch (error) {
      $("resume-run").disabled = false;
      showProblem(error);
    }
  };
  $("run-export").onclick = async () => {
    const response = await fetch(`/api/runs/${encodeURIComponent(run.runId)}/export`, { headers: auth() });
    const a = el("a");
    a.href = URL.createObjectURL(await response.blob());
    a.download = `run-${run.runId}.json`;
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
  };
  drawActions(view.actions ?? []);
  void drawArtifacts(run.runId, stale).catch(showProblem);
  // The text each call's model read, exactly as sent, with a Copy button.
  for (const details of document.querySelectorAll("#turns details.formatted")) {
    const pre = details.querySelector("pre");
    const copy = el("button", "copy", "Copy");
    copy.type = "button";
    copy.onclick = () => navigator.clipboard?.writeText(pre.textContent).then(() => (copy.textContent = "Copied"));
    details.append(copy);
  }
  // Each decision beside its call: who approved or denied it, and when.
  for (const record of view.actions ?? []) {
    if (!record.callId || (record.action !== "approve" && record.action !== "deny")) continue;
    const call = document.querySelector(`#turns .call[data-call-id="${CSS.escape(record.callId)}"]`);
    const verb = record.action === "approve" ? "approved" : "denied";
    call?.append(el("span", `decision ${record.action}`, `${verb} by ${record.by}, ${when(record.at)}`));
  }
  return `run=${encodeURIComponent(run.runId)}`;
}

/** Results stored as artifacts: size and items, the first page on demand, a download. */
async function drawArtifacts(runId, stale) {
  const base = `/api/runs/${encodeURIComponent(runId)}/artifacts`;
  const { artifacts } = await api(base);
  if (stale()) return;
  const list = $("artifact-list");
  list.replaceChildren();
  $("run-artifacts").hidden = artifacts.length === 0;
  for (const artifact of artifacts) {
    const item = el("li", "artifact");
    const size =
      artifact.bytes >= 1_048_576
        ? `${(artifact.bytes / 1_048_576).toFixed(1)} MB`
        : `${Math.ceil(artifact.bytes / 1024)} KB`;
    const details = el("details");
    details.append(
      el("summary", "", `${artifact.id.slice(0, 12)}… · ${size} · ${artifact.items} items · ${artifact.mediaType}`),
    );
    const pre = el("pre", "json");
    details.append(pre);
    details.ontoggle = async () => {
      if (!details.open || pre.textContent) return;
      const { firstPage } = await api(`${base}/${artifact.id}`).catch((error) => ({
        firstPage: { error: error.message },
      }));
      jsonBlock(pre, firstPage);
    };
    const download = el("button", "", "Download");
    download.type = "button";
    download.onclick = async () => {
      const response = await fetch(`${base}/${artifact.id}/download`, { headers: auth() });
      if (!response.ok) return showProblem(new Error(`HTTP ${response.status}`));
      const a = el("a");
      a.href = URL.createObjectURL(await response.blob());
      a.download = `artifact-${artifact.id.slice(0, 16)}.json`;
      a.click();
      setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
    };
    item.append(details, download);
    list.append(item);
  }
}

// ---------------------------------------------------------------- dead letters
async function showLetters(params, stale) {
  show("letters-view");
  const acknowledged = params.get("acknowledged") === "true";
  const offset = Number(params.get("offset") ?? 0);
  const run = params.get("run");
  $("letters-acknowledged").checked = acknowledged;
  const query = new URLSearchParams({ acknowledged: String(acknowledged), offset: String(offset) });
  if (run) query.set("run", run);
  const page = await api(`/api/dead-letters?${query}`);
  if (stale()) return;
  const body = $("letters").tBodies[0];
  const button = (className, text, path) => {
    const b = el("button", className, text);
    b.type = "button";
    b.onclick = async () => {
      b.disabled = true;
      showNotice(undefined);
      try {
        const answer = await act(path);
        await refresh();
        if (className === "replay") showNotice(replayNotice(answer));
      } catch (error) {
        b.disabled = false;
        // A replay that ran and failed again is an answer, not a load failure: its new outcome.
        if (className === "replay" && error.body?.replayed === false && error.body.outcome) {
          await refresh();
          showProblem(new Error(replayNotice(error.body)));
        } else showProblem(error);
      }
    };
    return b;
  };
  body.replaceChildren(
    ...page.letters.map((letter) => {
      const row = el("tr", letter.acknowledgedAt ? "acknowledged" : "");
      row.dataset.letterId = letter.id;
      const reason = el("td", "reason");
      reason.append(el("div", "", letter.reason), el("pre", "args json", pretty(letter.arguments)));
      const action = el("td", "actions");
      if (letter.acknowledgedAt) action.append(el("span", "done", `acknowledged ${when(letter.acknowledgedAt)}`));
      else {
        const id = encodeURIComponent(letter.id);
        if (letter.replayable) action.append(button("replay", "Replay", `/api/dead-letters/${id}/replay`));
        if (page.acknowledgeable)
          action.append(button("acknowledge", "Acknowledge", `/api/dead-letters/${id}/acknowledge`));
      }
      const cells = [
        when(letter.time),
        letter.agent,
        letter.tool,
        letter.errorCode,
        link(`#/runs/${encodeURIComponent(letter.runId)}`, letter.runId),
      ];
      for (const cell of cells) {
        const td = el("td");
        td.append(cell);
        row.append(td);
      }
      row.append(reason, action);
      return row;
    }),
  );
  $("letters-empty").hidden = page.letters.length > 0;
  $("letters-more").hidden = page.next === undefined;
  $("letters-more").onclick = () =>
    go("dead-letters", { acknowledged: String(acknowledged), offset: String(page.next) });
  return "list=";
}

// ---------------------------------------------------------------- tool health
async function showHealth(params, stale) {
  show("health-view");
  const minutes = params.get("minutes") ?? "60";
  $("health-minutes").value = minutes;
  const health = await api(`/api/health?minutes=${encodeURIComponent(minutes)}`);
  if (stale()) return;
  // Every call of the window is counted; a window's figures are kept a few seconds (as of when).
  $("health-runs").textContent =
    `${plural(health.runs, "run", "runs")}, ${plural(health.calls ?? 0, "call", "calls")}, every one counted` +
    (health.asOf ? ` (as of ${when(health.asOf)})` : "");
  $("health").tBodies[0].replaceChildren(
    ...health.tools.map((t) => {
      const row = el("tr");
      row.dataset.tool = t.tool;
      const codes = Object.entries(t.byCode)
        .map(([code, n]) => `${code} ${n}`)
        .join(", ");
      for (const cell of [t.tool, t.calls, t.failures, codes, duration(t.p50Ms), duration(t.p95Ms)])
        row.append(el("td", "", cell));
      return row;
    }),
  );
  $("health-empty").hidden = health.tools.length > 0;
  return "list=";
}

function go(view, params = {}) {
  const query = new URLSearchParams(Object.entries(params).filter(([, v]) => v));
  location.hash = `#/${view}${query.size ? `?${query}` : ""}`;
}

// A route's answer that arrives after the user moved on is dropped, so the page always shows the
// address it is at; `data-route` on <body> says which address is drawn (tests and scripts wait for it).
let generation = 0;
function parse() {
  // The page's own links are hash routes (#/runs/<id>); a path (/runs/<id>, from a bookmark or a script)
  // is read the same way.
  const hash = location.hash.startsWith("#/") ? location.hash : `#${location.pathname}${location.search}`;
  const [path, search = ""] = hash.replace(/^#\/?/, "").split("?");
  return { hash, path, params: new URLSearchParams(search) };
}

async function draw(stale) {
  const { path, params } = parse();
  const runMatch = /^runs\/(.+)$/.exec(path);
  if (runMatch) return showRun(decodeURIComponent(runMatch[1]), stale);
  if (path === "dead-letters") return showLetters(params, stale);
  if (path === "health") return showHealth(params, stale);
  return showRuns(params, stale);
}

/** Redraws the address shown (after a push or an action), keeping the subscription. */
async function refresh() {
  const mine = generation;
  try {
    await draw(() => mine !== generation);
    if (mine === generation) {
      showProblem(undefined);
      drawn();
    }
  } catch (error) {
    showProblem(error);
  }
}

async function route() {
  unsubscribe();
  const mine = ++generation;
  const stale = () => mine !== generation;
  const { hash } = parse();
  showNotice(undefined);
  delete document.body.dataset.route;
  const query = await draw(stale);
  if (stale()) return;
  showProblem(undefined);
  document.body.dataset.route = hash === "#/" ? "#/runs" : hash;
  drawn();
  if (query !== undefined) subscribe(query, () => refresh());
}

$("run-filter").addEventListener("submit", (event) => {
  event.preventDefault();
  cursors.length = 0;
  const params = {};
  for (const key of FILTERS) params[key] = $(`filter-${key}`).value.trim();
  go("runs", params);
});
$("letters-acknowledged").addEventListener("change", (event) =>
  go("dead-letters", { acknowledged: String(event.target.checked) }),
);
$("health-minutes").addEventListener("change", (event) => go("health", { minutes: event.target.value }));
window.addEventListener("hashchange", () => route().catch(showProblem));
route().catch(showProblem);
