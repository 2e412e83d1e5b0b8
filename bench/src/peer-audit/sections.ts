// The audit's extra sections, printed after its tables and before the summary line. Each is one
// module-level entry of SECTIONS: a harness choice varied on its own (a labelled sensitivity row),
// so a reader sees what that choice does to the result. A section of another kind lives in its own
// module (remote/audit.ts: the remote tools section, which main.ts prints after these).
import { FRAMEWORKS, type Framework, type PeerAuditReport, pct, runPeerAudit, select, tally } from "./audit.js";
import { READERS } from "./model.js";

/** What a section is given: the headline run, to compare with and to repeat with one choice changed. */
export interface SectionContext {
  /** Plans a section reruns: the headline's first ones (the same plans, drawn from the same seed). */
  readonly runs: number;
  readonly seed: number;
  readonly report: PeerAuditReport;
}

/** The headline's rows for its first `runs` plans: what a section's rerun compares with. */
function firstPlans(report: PeerAuditReport, runs: number): PeerAuditReport {
  return { ...report, runs, rows: report.rows.filter((r) => r.plan.run <= runs) };
}

/** One extra section of `pnpm peer-audit`: a title and the lines it prints. */
export interface AuditSection {
  readonly name: string;
  lines(context: SectionContext): Promise<string[]>;
}

/** A table of the same columns for two runs that differ in one harness choice. */
function compare(
  label: string,
  base: PeerAuditReport,
  varied: PeerAuditReport,
  frameworks: readonly Framework[],
): string[] {
  const lines = [
    `| framework | reader | silent failures (headline) | silent failures (${label}) | writes landed (headline) | writes landed (${label}) | duplicates (headline) | duplicates (${label}) |`,
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
  ];
  for (const f of frameworks)
    for (const reader of READERS) {
      const a = tally(select(base, f, reader));
      const b = tally(select(varied, f, reader));
      lines.push(
        `| ${f} | ${reader} | ${pct(a.silentFailures, a.runs)}% | ${pct(b.silentFailures, b.runs)}% | ${a.landed}/${a.writes} | ${b.landed}/${b.writes} | ${a.duplicates} | ${b.duplicates} |`,
      );
    }
  return lines;
}

const PEERS = FRAMEWORKS.filter((f) => f !== "needlework");

/** The peers pass the framework's call id as the Idempotency-Key (the old harness): a model retry writes twice. */
export const callIdKeysSection: AuditSection = {
  name: "call-id keys",
  async lines({ runs, seed, report }) {
    const varied = await runPeerAudit(runs, seed, PEERS, { keys: "call-id" });
    return [
      `Sensitivity (the first ${runs} plans): the peers' tools send the call id as the Idempotency-Key instead of a key derived from the tool and its arguments (a model's retry comes under a new call id):`,
      "",
      ...compare("call-id keys", firstPlans(report, runs), varied, PEERS),
    ];
  },
};

/** Every run's tool hands back the failed `Response` instead of throwing (the field report's `fetch`). */
export const returnedResponseSection: AuditSection = {
  name: "returned Response",
  async lines({ runs, seed, report }) {
    const varied = await runPeerAudit(runs, seed, FRAMEWORKS, { client: "fetch-response" });
    return [
      `Labelled scenario (the first ${runs} plans): every tool uses fetch and returns the Response when it is not ok (only needlework's detector reads a Response; the peers serialize it to {}), beside the headline's runs:`,
      "",
      ...compare("returned Response", firstPlans(report, runs), varied, FRAMEWORKS),
    ];
  },
};

/** The sections `pnpm peer-audit --sections` prints, in order. */
export const SECTIONS: AuditSection[] = [callIdKeysSection, returnedResponseSection];
