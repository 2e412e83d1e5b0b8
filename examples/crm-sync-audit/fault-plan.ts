import { mulberry32, pick } from "./seeded-random.js";

/** The two fake CRMs of the audit. */
export type CrmName = "salesforce" | "hubspot";

/** The three write tools of the CRM sync agent. */
export type WriteTool = "update_contact" | "create_task" | "post_note";

/** One write a sync run is meant to make; `key` names it in the fake CRMs' ground truth. */
export interface IntendedWrite {
  readonly key: string;
  readonly tool: WriteTool;
  readonly crm: CrmName;
  /** The customer record (contact) the write belongs to: a record is half-updated when some of its writes land and some do not. */
  readonly record: string;
  readonly arguments: Readonly<Record<string, unknown>>;
}

/** What a fake CRM does to a request instead of applying it. */
export type FaultKind = "forbidden" | "locked" | "rate_limited" | "server_error" | "timeout";

/**
 * The fault a write meets: its first `failures` requests fail with `kind` (every request when
 * `permanent`), later ones succeed. A timed-out request may still have been applied (`landed[i]`
 * for the i-th timed-out request): the guide's ambiguous timeout.
 */
export interface WriteFault {
  readonly kind: FaultKind;
  readonly failures: number;
  readonly permanent?: true;
  /** 429 only: the Retry-After the CRM sends, in seconds (waited as milliseconds: virtual time). */
  readonly retryAfterS?: number;
  readonly landed?: readonly boolean[];
}

/** One audited run: the sync job and the faults the CRMs will inject, keyed by write. */
export interface RunPlan {
  readonly run: number;
  readonly writes: readonly IntendedWrite[];
  readonly faults: Readonly<Record<string, WriteFault>>;
}

/**
 * The fault mix per write (first request), about 8% in all: a run has six writes, so about a third
 * of runs meet at least one fault. Durations are drawn uniformly from the lists.
 */
export const FAULT_MIX = Object.freeze([
  { kind: "forbidden", p: 0.015, failures: [1], permanent: true },
  { kind: "locked", p: 0.02, failures: [1, 2, 3] },
  { kind: "rate_limited", p: 0.015, failures: [1, 2, 3], retryAfterS: [1, 2, 5] },
  { kind: "server_error", p: 0.015, failures: [1, 2, 4, 9] },
  { kind: "timeout", p: 0.015, failures: [1, 2, 3] },
] as const);

const FIRST = ["Ada", "Bruno", "Chen", "Dana", "Emeka", "Farah", "Goran", "Hana", "Ines", "Jonas", "Keiko", "Luis"];
const LAST = ["Okafor", "Lindqvist", "Moreau", "Tanaka", "Silva", "Novak", "Haddad", "Kowalski", "Reyes", "Brennan"];
const TITLES = ["VP Operations", "Head of IT", "Procurement Lead", "CFO", "Office Manager", "Account Director"];
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

function salesforceId(random: () => number): string {
  let id = "0035g00000";
  for (let i = 0; i < 5; i++) id += pick(random, [...ALNUM]);
  return id;
}

function drawFault(random: () => number): WriteFault | undefined {
  let r = random();
  for (const mix of FAULT_MIX) {
    if (r < mix.p) {
      const failures = pick(random, mix.failures);
      if (mix.kind === "forbidden") return { kind: mix.kind, failures, permanent: true };
      if (mix.kind === "rate_limited") return { kind: mix.kind, failures, retryAfterS: pick(random, mix.retryAfterS) };
      if (mix.kind === "timeout")
        return { kind: mix.kind, failures, landed: Array.from({ length: failures }, () => random() < 0.5) };
      return { kind: mix.kind, failures };
    }
    r -= mix.p;
  }
  return undefined;
}

/**
 * The sync job of one run: two customers changed in the source system; each gets a contact update
 * in both CRMs, the first a follow-up task in Salesforce, the second an activity note in HubSpot.
 */
function syncJob(run: number, random: () => number): IntendedWrite[] {
  const writes: IntendedWrite[] = [];
  for (let c = 0; c < 2; c++) {
    const first = pick(random, FIRST);
    const last = pick(random, LAST);
    const record = `${first} ${last}`;
    const sfId = salesforceId(random);
    const hsId = String(10_000 + Math.floor(random() * 90_000));
    const changes = { email: `${first}.${last}@customer${run}.example`.toLowerCase(), title: pick(random, TITLES) };
    writes.push({
      key: `update_contact:salesforce:${sfId}`,
      tool: "update_contact",
      crm: "salesforce",
      record,
      arguments: { crm: "salesforce", contactId: sfId, changes },
    });
    writes.push({
      key: `update_contact:hubspot:${hsId}`,
      tool: "update_contact",
      crm: "hubspot",
      record,
      arguments: { crm: "hubspot", contactId: hsId, changes },
    });
    if (c === 0) {
      const args = {
        crm: "salesforce",
        contactId: sfId,
        subject: `Renewal call with ${record}`,
        dueDate: `2025-07-${String(1 + (run % 28)).padStart(2, "0")}`,
      };
      writes.push({
        key: `create_task:salesforce:${sfId}`,
        tool: "create_task",
        crm: "salesforce",
        record,
        arguments: args,
      });
    } else {
      const args = {
        crm: "hubspot",
        contactId: hsId,
        body: `Contact details synced from the billing system (run ${run}): new title ${changes.title}.`,
      };
      writes.push({ key: `post_note:hubspot:${hsId}`, tool: "post_note", crm: "hubspot", record, arguments: args });
    }
  }
  return writes;
}

/**
 * The audit's fault plans: `runs` sync jobs and, for each write, the fault it meets (or none), all
 * drawn from one seeded source. Both modes of the audit run these same plans.
 *
 * @example
 * ```ts
 * const plans = faultPlans(500, 2024);
 * plans[0].writes.length; // 6
 * ```
 */
export function faultPlans(runs: number, seed: number): RunPlan[] {
  const random = mulberry32(seed);
  const plans: RunPlan[] = [];
  for (let run = 1; run <= runs; run++) {
    const writes = syncJob(run, random);
    const faults: Record<string, WriteFault> = {};
    for (const write of writes) {
      const fault = drawFault(random);
      if (fault) faults[write.key] = fault;
    }
    plans.push({ run, writes, faults });
  }
  return plans;
}
