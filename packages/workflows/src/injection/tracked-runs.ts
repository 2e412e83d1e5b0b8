/*
 * What the injection policy remembers of calls made without an agent loop (MCP, AI SDK tools,
 * `factory.tools.invoke`), by run id. Bounded, and fail closed: the content of at most `maxRuns`
 * runs is kept, clean runs are forgotten first, and a tainted run whose content must go keeps its
 * mark (its id and sources, no content): it stays tainted, and under `arguments` every argument of
 * its calls counts as untrusted. Only past MAX_FORGOTTEN_MARKS such marks does the memory give one
 * up, and from then on every run it does not know counts as tainted (it cannot tell a new run from
 * a forgotten one). Nothing an attacker sends can make it forget a mark and let a call through.
 */

/** What one run (by `runId`) has read. Past MAX_TRACKED_CHARS of content, `overflow`: every argument counts as untrusted. */
export interface TrackedRun {
  untrusted: boolean;
  sources: string[];
  /** Trusted results, each with the arguments of the call it answered. */
  trusted: { readonly result: unknown; readonly arguments: unknown }[];
  untrustedResults: unknown[];
  size: number;
  overflow: boolean;
}

/** The most content remembered per run (JSON characters). */
export const MAX_TRACKED_CHARS = 1_000_000;

/** The most marks of tainted runs kept without their content (ids and sources only, about 100 bytes each). */
export const MAX_FORGOTTEN_MARKS = 1_000_000;

/** The source named for a run the memory can no longer tell apart from a forgotten tainted one. */
export const FORGOTTEN_SOURCE = "a conversation this process no longer remembers in full";

const fresh = (): TrackedRun => ({
  untrusted: false,
  sources: [],
  trusted: [],
  untrustedResults: [],
  size: 0,
  overflow: false,
});

/** A tainted run known only by its mark: tainted, no content (so `arguments` flags every argument). */
const markOnly = (sources: string[]): TrackedRun => ({
  untrusted: true,
  sources,
  trusted: [],
  untrustedResults: [],
  size: 0,
  overflow: true,
});

/** The policy's memory of runs without a loop. @internal */
export class TrackedRuns {
  /** Runs with content and no untrusted read, least recently used first. */
  private readonly clean = new Map<string, TrackedRun>();
  /** Runs with content that read untrusted content, least recently used first. */
  private readonly tainted = new Map<string, TrackedRun>();
  /** Tainted runs whose content was dropped to make room: their sources, oldest first. */
  private readonly forgotten = new Map<string, string[]>();
  /** A mark was given up: every run not known counts as tainted from now on. */
  private saturated = false;

  constructor(
    private readonly maxRuns: number,
    private readonly maxMarks = MAX_FORGOTTEN_MARKS,
  ) {}

  /** What the run read, or `undefined` for a run that read nothing the policy knows of (clean). */
  get(runId: string): TrackedRun | undefined {
    const known = this.touch(runId);
    if (known !== undefined) return known;
    const sources = this.forgotten.get(runId);
    if (sources !== undefined) return markOnly(sources);
    return this.saturated ? markOnly([FORGOTTEN_SOURCE]) : undefined;
  }

  /** Records what a call of the run returned: `untrusted` content taints the run for good. */
  remember(runId: string, tool: string, untrusted: boolean, content: unknown, args?: unknown): void {
    let run = this.touch(runId);
    if (run === undefined) {
      // A forgotten (or possibly forgotten) tainted run comes back tainted, with no content.
      const sources = this.forgotten.get(runId) ?? (this.saturated ? [FORGOTTEN_SOURCE] : undefined);
      this.forgotten.delete(runId);
      run = sources === undefined ? fresh() : markOnly([...sources]);
      (run.untrusted ? this.tainted : this.clean).set(runId, run);
    }
    if (untrusted) {
      if (!run.untrusted) {
        run.untrusted = true;
        this.clean.delete(runId);
        this.tainted.set(runId, run);
      }
      if (!run.sources.includes(tool)) run.sources.push(tool);
    }
    this.makeRoom();
    if (run.overflow) return;
    run.size += (JSON.stringify(content)?.length ?? 0) + (untrusted ? 0 : (JSON.stringify(args)?.length ?? 0));
    if (run.size > MAX_TRACKED_CHARS) {
      run.overflow = true;
      run.trusted = [];
      run.untrustedResults = [];
      return;
    }
    if (untrusted) run.untrustedResults.push(content);
    else run.trusted.push({ result: content, arguments: args });
  }

  /** The run, moved to the most recently used end of its map. */
  private touch(runId: string): TrackedRun | undefined {
    for (const map of [this.tainted, this.clean]) {
      const run = map.get(runId);
      if (run !== undefined) {
        map.delete(runId);
        map.set(runId, run);
        return run;
      }
    }
    return undefined;
  }

  /** Past `maxRuns`: a clean run's content goes first; else a tainted run's, its mark kept. */
  private makeRoom(): void {
    while (this.clean.size + this.tainted.size > this.maxRuns) {
      const cleanId = this.clean.keys().next();
      if (!cleanId.done) {
        this.clean.delete(cleanId.value);
        continue;
      }
      const [taintedId, run] = this.tainted.entries().next().value!;
      this.tainted.delete(taintedId);
      this.forgotten.set(taintedId, run.sources);
      if (this.forgotten.size > this.maxMarks) {
        this.forgotten.delete(this.forgotten.keys().next().value!);
        this.saturated = true;
      }
    }
  }
}
