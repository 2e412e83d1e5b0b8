// Cancel a running run from its page: a button, a confirmation naming the calls it aborts (tool and
// arguments, whole), and what happened after (the request's who and when; the run's end arrives by push).

/** The run's calls still in flight in `events`: a `tool-call` with no `tool-result` yet. */
function inFlight(events) {
  const settled = new Set(events.filter((e) => e.type === "tool-result").map((e) => e.callId));
  return events.filter((e) => e.type === "tool-call" && !settled.has(e.callId));
}

/**
 * Draws the cancel action of a run's page: shown for a running run only (not paused, not interrupted,
 * not ended). `page` gives the page's own helpers: `$`, `el`, `act`, `refresh`, `showNotice`, `showProblem`.
 */
export function drawCancel(view, page) {
  const { $, el, act, refresh, showNotice, showProblem } = page;
  const { run, events } = view;
  const section = $("act-cancel");
  section.hidden = run.status !== "running";
  if (section.hidden) return;
  const button = $("cancel-run");
  const dialog = $("cancel-confirm");
  button.disabled = false;
  button.onclick = () => {
    const calls = inFlight(events);
    $("cancel-confirm-run").textContent = run.runId;
    const list = $("cancel-confirm-calls");
    list.replaceChildren(
      ...calls.map((c) => {
        const item = el("li", "", `${c.tool} `);
        item.append(el("code", "", JSON.stringify(c.arguments)));
        return item;
      }),
    );
    $("cancel-confirm-none").hidden = calls.length > 0;
    dialog.showModal();
  };
  $("cancel-keep").onclick = () => dialog.close();
  $("cancel-confirmed").onclick = async () => {
    dialog.close();
    button.disabled = true;
    try {
      const answer = await act(`/api/runs/${encodeURIComponent(run.runId)}/cancel`);
      const asked = `${answer.by} at ${new Date(answer.at).toLocaleString()}`;
      showNotice(
        answer.already
          ? `Cancel was already requested by ${asked}; the run ends cancelled within a lease period.`
          : `Cancel requested: the run's process aborts its calls and ends it cancelled within a lease period.`,
      );
      showProblem(undefined);
      await refresh();
    } catch (error) {
      button.disabled = false;
      showProblem(error);
    }
  };
}
