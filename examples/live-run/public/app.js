// The live run page: one EventSource, its events drawn by the shared timeline renderer
// (@needlework/inspector's public/timeline.js, which the run inspector uses for stored runs).
import { createTimeline } from "/timeline.js";

const $ = (id) => document.getElementById(id);

function setStatus(text, className) {
  $("status").textContent = text;
  $("status").className = `status ${className}`;
}

const timeline = createTimeline(
  {
    turns: $("turns"),
    final: { section: $("final"), status: $("final-status"), health: $("final-health"), answer: $("final-answer") },
  },
  setStatus,
);

const source = new EventSource("/events");
const types = ["run-start", "turn-start", "text-delta", "tool-call", "tool-retry", "tool-result", "run-health"];
types.push("correction", "approval-required", "turn-end", "run-end", "run-error");
for (const type of types) {
  source.addEventListener(type, (message) => {
    const event = JSON.parse(message.data);
    if (type === "run-start") $("run-id").textContent = event.runId;
    // The server ends the stream after these: nothing more will come.
    if (type === "run-end" || type === "run-error") source.close();
    timeline.handle({ ...event, type });
  });
}
// The server ends the stream after run-end; a connection lost before that is reported, not retried.
source.addEventListener("error", () => {
  if ($("final").hidden) {
    source.close();
    setStatus("connection lost", "failed");
  }
});
