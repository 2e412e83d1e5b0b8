// The run inspector's page: routes #/runs, #/runs/<id>, #/dead-letters (or the same paths) over the JSON API.
// Every value is written as text (textContent), never as HTML.
import { createTimeline, el } from "/timeline.js";

const $ = (id) => document.getElementById(id);
const POLL_MS = 1000;

// The printed URL carries a token in its fragment (never sent to a server or a log): keep it for this tab.
if (location.hash.startsWith("#token=")) {
  sessionStorage.setItem("needlework-inspector-token", decodeURIComponent(location.hash.slice("#token=".length)));
  history.replaceState(null, "", "#/runs");
}
const token = sessionStorage.getItem("needlework-inspector-token");

async function api(path, init = {}) {
  const headers = { ...(init.headers ?? {}), ...(token ? { authorization: `Bearer ${token}` } : {}) };
  const response = await fetch(path, { ...init, headers });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(body.error ?? `HTTP ${response.status}`);
  return body;
}

function link(href, text) {
  const a = el("a", "", text);
  a.href = href;
  return a;
}

const when = (iso) => (iso ? new Date(iso).toLocaleString() : "");

function showProblem(error) {
  $("problem").textContent = error ? `Could not load: ${error.message}` : "";
  $("problem").hidden = !error;
}

function show(view) {
  for (const id of ["runs-view", "run-view", "letters-view"]) $(id).hidden = id !== view;
  $("nav-runs").classList.toggle("active", view !== "letters-view");
  $("nav-letters").classList.toggle("active", view === "letters-view");
}

let poll;
function stopPolling() {
  clearTimeout(poll);
  poll = undefined;
}

// Runs: newest first, filtered, paged by the store's cursor.
const cursors = [];
async function showRuns(params, stale) {
  show("runs-view");
  $("filter-status").value = params.get("status") ?? "";
  $("filter-agent").value = params.get("agent") ?? "";
  const query = new URLSearchParams();
  for (const key of ["status", "agent", "cursor"]) if (params.get(key)) query.set(key, params.get(key));
  const page = await api(`/api/runs?${query}`);
  if (stale()) return;
  const body = $("runs").tBodies[0];
  body.replaceChildren(
    ...page.runs.map((run) => {
      const row = el("tr");
      row.dataset.runId = run.runId;
      const status = el("span", `status ${run.status}`, run.status);
      const cells = [
        when(run.startedAt),
        link(`#/runs/${encodeURIComponent(run.runId)}`, run.runId),
        run.agent,
        status,
        when(run.endedAt),
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
  $("runs-older").hidden = !page.next;
  $("runs-older").onclick = () => {
    cursors.push(params.get("cursor") ?? "");
    go("runs", { ...Object.fromEntries(params), cursor: page.next });
  };
  $("runs-newer").hidden = !params.get("cursor");
  $("runs-newer").onclick = () => go("runs", { ...Object.fromEntries(params), cursor: cursors.pop() ?? "" });
}

// One run: its timeline, redrawn while it is still running.
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
let drawn = "";
async function showRun(runId, stale) {
  show("run-view");
  const view = await api(`/api/runs/${encodeURIComponent(runId)}`);
  if (stale()) return;
  const text = JSON.stringify(view);
  if (text !== drawn) {
    drawn = text;
    const { run, events } = view;
    $("run-id").textContent = run.runId;
    $("run-agent").textContent = run.agent;
    $("run-started").textContent = when(run.startedAt);
    const ended = run.status === "awaiting_approval" ? "paused" : "ended";
    $("run-ended").textContent = run.endedAt ? `· ${ended} ${when(run.endedAt)}` : "";
    $("run-input").textContent = typeof run.input === "string" ? run.input : JSON.stringify(run.input);
    timeline.reset();
    for (const event of events) timeline.handle(event);
    $("status").textContent = run.status;
    $("status").className = `status ${run.status}`;
  }
  if (view.run.status === "running") poll = setTimeout(() => route().catch(showProblem), POLL_MS);
}

// Dead letters, with acknowledge (the inspector's only write).
async function showLetters(params, stale) {
  show("letters-view");
  const acknowledged = params.get("acknowledged") === "true";
  const offset = Number(params.get("offset") ?? 0);
  $("letters-acknowledged").checked = acknowledged;
  const page = await api(`/api/dead-letters?acknowledged=${acknowledged}&offset=${offset}`);
  if (stale()) return;
  const body = $("letters").tBodies[0];
  body.replaceChildren(
    ...page.letters.map((letter) => {
      const row = el("tr", letter.acknowledgedAt ? "acknowledged" : "");
      row.dataset.letterId = letter.id;
      const reason = el("td");
      reason.append(el("div", "", letter.reason), el("pre", "args", JSON.stringify(letter.arguments)));
      const action = el("td");
      if (letter.acknowledgedAt) action.append(el("span", "done", `acknowledged ${when(letter.acknowledgedAt)}`));
      else if (page.acknowledgeable) {
        const button = el("button", "acknowledge", "Acknowledge");
        button.type = "button";
        button.onclick = async () => {
          button.disabled = true;
          try {
            await api(`/api/dead-letters/${encodeURIComponent(letter.id)}/acknowledge`, {
              method: "POST",
              headers: { "x-needlework-inspector": "1" },
            });
            await route();
          } catch (error) {
            button.disabled = false;
            showProblem(error);
          }
        };
        action.append(button);
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
}

function go(view, params = {}) {
  const query = new URLSearchParams(Object.entries(params).filter(([, v]) => v));
  location.hash = `#/${view}${query.size ? `?${query}` : ""}`;
}

// A route's answer that arrives after the user moved on is dropped, so the page always shows the
// address it is at; `data-route` on <body> says which address is drawn (tests and scripts wait for it).
let generation = 0;
async function route() {
  stopPolling();
  const mine = ++generation;
  const stale = () => mine !== generation;
  // The page's own links are hash routes (#/runs/<id>); a path (/runs/<id>, from a bookmark or a script)
  // is read the same way.
  const hash = location.hash.startsWith("#/") ? location.hash : `#${location.pathname}${location.search}`;
  const [path, search = ""] = hash.replace(/^#\/?/, "").split("?");
  const params = new URLSearchParams(search);
  const runMatch = /^runs\/(.+)$/.exec(path);
  delete document.body.dataset.route;
  if (runMatch) await showRun(decodeURIComponent(runMatch[1]), stale);
  else if (path === "dead-letters") await showLetters(params, stale);
  else {
    drawn = "";
    await showRuns(params, stale);
  }
  if (stale()) return;
  showProblem(undefined);
  document.body.dataset.route = hash === "#/" ? "#/runs" : hash;
}

$("run-filter").addEventListener("submit", (event) => {
  event.preventDefault();
  cursors.length = 0;
  go("runs", { status: $("filter-status").value, agent: $("filter-agent").value.trim() });
});
$("letters-acknowledged").addEventListener("change", (event) =>
  go("dead-letters", { acknowledged: String(event.target.checked) }),
);
window.addEventListener("hashchange", () => {
  drawn = "";
  route().catch(showProblem);
});
route().catch(showProblem);
