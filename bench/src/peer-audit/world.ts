// The audit's world: a fake CRM that keeps the ground truth of every write, and the seeded fault
// plans from the field report. A sync run writes five contacts in parallel; each write is one
// composite request (update the contact, create a sync note). The contact update is an upsert; the
// note is a create, so a note applied twice is a duplicate. Like most write APIs with an
// `Idempotency-Key` header, the CRM applies a request item at most once per key (a failed item is
// not remembered, so a retry with the same key tries it again).

/** A seeded source of numbers in [0, 1) (mulberry32: small, fast, and well spread for a bench). */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

/**
 * The HTTP client a run's tool uses (one per run, as an application has one). `fetch-response` (a
 * tool returning the failed `Response`) is only run as its own labelled scenario.
 */
export type ClientKind =
  | "axios"
  | "got"
  | "ky"
  | "node-fetch"
  | "fetch"
  | "fetch-response"
  | "openapi"
  | "octokit"
  | "stripe";
/** Every client, in the order runs draw from. */
export const CLIENTS: readonly ClientKind[] = [
  "axios",
  "got",
  "ky",
  "node-fetch",
  "fetch",
  "openapi",
  "octokit",
  "stripe",
];

/** What the CRM does to the requests of one write, before it answers normally. */
export type Fault =
  /** Thrown by the client: an HTTP error status, `times` requests in a row (Infinity: always). */
  | {
      readonly kind: "http";
      readonly status: number;
      readonly times: number;
      readonly retryAfter?: "seconds" | "date";
      readonly retryAfterS?: number;
    }
  /** The connection is reset before the request reaches the CRM (the client reports it). */
  | { readonly kind: "network"; readonly times: number }
  /** The write is applied, then the connection drops before the answer is sent: a lost response (once). */
  | { readonly kind: "lost-response" }
  /** HTTP 200 whose body is a failure value (`{ ok: false, error }` or `{ success: false, errors }`). */
  | { readonly kind: "returned"; readonly times: number; readonly transient: boolean; readonly shape: "ok" | "success" }
  /** HTTP 200, a ~20 KB body, the failure at its end. */
  | { readonly kind: "buried"; readonly times: number; readonly transient: boolean }
  /** HTTP 200 composite answer: the contact item landed, the note item failed with `status`. */
  | { readonly kind: "partial"; readonly times: number; readonly status: number }
  /** HTTP 200 composite answer: every item refused with 403. */
  | { readonly kind: "forbidden-batch" }
  /**
   * Held out (written without the detector's list): a `{ code, msg }` body with 200, an HTML error
   * page with 200, a 207 Multi-Status whose note item failed. The note is not applied.
   */
  | { readonly kind: "held-out"; readonly shape: "code-msg" | "html-200" | "multistatus"; readonly times: number }
  /** A false-alarm probe: everything lands; the body carries failure-looking data (an audit log, error: null...). */
  | { readonly kind: "false-alarm"; readonly shape: "audit-log" | "log-hits" | "empty-errors" };

/** The field report's scenarios; a run belongs to one. */
export const SCENARIOS = [
  "client errors",
  "429 + Retry-After",
  "lost response",
  "returned failure",
  "buried error",
  "partial batch",
  "403 batch",
  "held-out faults",
  "false-alarm corpus",
  "mix",
] as const;
/** One of {@link SCENARIOS}. */
export type Scenario = (typeof SCENARIOS)[number];

/** One write a run is meant to make. */
export interface IntendedWrite {
  readonly contactId: string;
  readonly email: string;
  readonly note: string;
}

/** One audited run: the job, the client the tool uses, the fault each write meets. */
export interface RunPlan {
  readonly run: number;
  readonly scenario: Scenario;
  readonly client: ClientKind;
  readonly writes: readonly IntendedWrite[];
  readonly faults: Readonly<Record<string, Fault>>;
}

/** Writes per run, made in parallel by one model turn. */
export const WRITES_PER_RUN = 5;

function drawFault(scenario: Scenario, random: () => number): Fault {
  switch (scenario) {
    case "client errors":
      return pick(random, [
        { kind: "http", status: 503, times: 1 },
        { kind: "http", status: 500, times: 2 },
        { kind: "http", status: 502, times: 1 },
        { kind: "http", status: 400, times: Infinity },
        { kind: "http", status: 404, times: Infinity },
        { kind: "network", times: 1 },
      ] as const);
    case "429 + Retry-After":
      return {
        kind: "http",
        status: 429,
        times: pick(random, [1, 2]),
        retryAfter: pick(random, ["seconds", "date"] as const),
        retryAfterS: pick(random, [1, 2, 5]),
      };
    case "lost response":
      return { kind: "lost-response" };
    case "returned failure": {
      const transient = random() < 0.5;
      return {
        kind: "returned",
        times: transient ? 1 : Infinity,
        transient,
        shape: pick(random, ["ok", "success"] as const),
      };
    }
    case "buried error": {
      const transient = random() < 0.5;
      return { kind: "buried", times: transient ? 1 : Infinity, transient };
    }
    case "partial batch":
      return random() < 0.5
        ? { kind: "partial", times: 1, status: 503 }
        : { kind: "partial", times: Infinity, status: 422 };
    case "403 batch":
      return { kind: "forbidden-batch" };
    case "held-out faults": {
      const transient = random() < 0.5;
      return {
        kind: "held-out",
        shape: pick(random, ["code-msg", "html-200", "multistatus"] as const),
        times: transient ? 1 : Infinity,
      };
    }
    case "false-alarm corpus":
      return { kind: "false-alarm", shape: pick(random, ["audit-log", "log-hits", "empty-errors"] as const) };
    case "mix":
      return drawFault(pick(random, SCENARIOS.slice(0, -1)), random);
  }
}

/**
 * `runs` seeded plans, the scenarios and the clients in turn; in each run every write meets its scenario's fault
 * with probability 0.4 (at least one write does).
 *
 * @example
 * ```ts
 * const plans = auditPlans(200, 2026);
 * ```
 */
export function auditPlans(runs: number, seed: number): RunPlan[] {
  const random = seeded(seed);
  const plans: RunPlan[] = [];
  for (let run = 1; run <= runs; run++) {
    const scenario = SCENARIOS[(run - 1) % SCENARIOS.length]!;
    // Clients in turn, not drawn: every scenario meets every client (the pairs repeat every 40
    // runs), so a seed changes the faults, never which clients a scenario is seen through.
    const client = CLIENTS[(run - 1) % CLIENTS.length]!;
    const writes: IntendedWrite[] = [];
    for (let i = 0; i < WRITES_PER_RUN; i++) {
      const contactId = `c-${run}-${i + 1}`;
      writes.push({
        contactId,
        email: `person${i + 1}@customer${run}.example`,
        note: `Synced from billing, run ${run}, contact ${i + 1}.`,
      });
    }
    const faults: Record<string, Fault> = {};
    const hit = writes.map(() => random() < 0.4);
    if (!hit.includes(true)) hit[Math.floor(random() * WRITES_PER_RUN)] = true;
    writes.forEach((w, i) => {
      if (hit[i]) faults[w.contactId] = drawFault(scenario, random);
    });
    plans.push({ run, scenario, client, writes, faults });
  }
  return plans;
}

/** An HTTP answer of the fake CRM, before the loopback server sends it (loopback.ts). */
export interface CrmAnswer {
  readonly status: number;
  readonly statusText: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
  /** The request never got an answer: `reset` before it was applied, `lost` after (the connection drops before the answer). */
  readonly transport?: "reset" | "lost";
}

const STATUS_TEXT: Record<number, string> = {
  200: "OK",
  400: "Bad Request",
  403: "Forbidden",
  404: "Not Found",
  422: "Unprocessable Entity",
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
};

/** A long, clean activity history (no failure words): what a CRM returns along with a contact. */
function history(contactId: string, entries: number): unknown[] {
  const kinds = ["email_opened", "meeting_booked", "page_viewed", "invoice_paid", "call_logged"];
  return Array.from({ length: entries }, (_, i) => ({
    at: `2026-0${1 + (i % 9)}-${String(1 + (i % 28)).padStart(2, "0")}T10:00:00Z`,
    type: kinds[i % kinds.length],
    subject: `Activity ${i + 1} on ${contactId}: renewal conversation and product usage review`,
  }));
}

/**
 * The CRM: answers each request by the write's fault plan and counts what was applied. The tool
 * bodies call {@link FakeCrm.sync} with the key their framework gives them.
 */
export class FakeCrm {
  /** Notes created per contact (the ground truth of landed and duplicate writes). */
  readonly notes = new Map<string, number>();
  readonly contacts = new Set<string>();
  private readonly requests = new Map<string, number>();
  private readonly appliedKeys = new Set<string>();

  constructor(readonly plan: RunPlan) {}

  /** Requests the CRM received for one contact's write (retries by any layer included). */
  requestsFor(contactId: string): number {
    return this.requests.get(contactId) ?? 0;
  }

  /** Applies one item at most once per idempotency key. */
  private apply(item: "contact" | "note", contactId: string, key: string): void {
    const itemKey = `${key}\u0000${item}`;
    if (this.appliedKeys.has(itemKey)) return;
    this.appliedKeys.add(itemKey);
    if (item === "contact") this.contacts.add(contactId);
    else this.notes.set(contactId, (this.notes.get(contactId) ?? 0) + 1);
  }

  /** One composite sync request for `write`, sent with `key` as its Idempotency-Key. */
  sync(write: { contactId: string; email: string; note: string }, key: string): CrmAnswer {
    const { contactId } = write;
    const n = (this.requests.get(contactId) ?? 0) + 1;
    this.requests.set(contactId, n);
    const fault = this.plan.faults[contactId];
    const ok = (): CrmAnswer => {
      this.apply("contact", contactId, key);
      this.apply("note", contactId, key);
      return answer(200, {
        results: [
          { ref: "contact", status: 200, id: contactId },
          { ref: "note", status: 201, id: `note-${contactId}` },
        ],
      });
    };
    if (!fault) return ok();
    switch (fault.kind) {
      case "http": {
        if (n > fault.times) return ok();
        const headers: Record<string, string> = {};
        if (fault.retryAfterS !== undefined)
          headers["retry-after"] =
            fault.retryAfter === "date"
              ? new Date(Date.now() + fault.retryAfterS * 1000).toUTCString()
              : String(fault.retryAfterS);
        const code = fault.status === 429 ? "rate_limited" : fault.status >= 500 ? "server_error" : "invalid_request";
        return answer(fault.status, { message: STATUS_TEXT[fault.status], code }, headers);
      }
      case "network":
        return n > fault.times ? ok() : { ...answer(0, undefined), transport: "reset" };
      case "lost-response":
        if (n > 1) return ok();
        ok();
        return { ...answer(0, undefined), transport: "lost" };
      case "returned":
        if (n > fault.times) return ok();
        return answer(
          200,
          fault.shape === "ok"
            ? { ok: false, error: fault.transient ? "service_busy" : "invalid_email" }
            : {
                success: false,
                errors: [
                  fault.transient
                    ? { code: "LOCK_TIMEOUT", message: "Record locked by another sync, try again." }
                    : { code: "INVALID_EMAIL", message: "The email address is not valid." },
                ],
              },
        );
      case "buried": {
        if (n > fault.times) return ok();
        this.apply("contact", contactId, key);
        return answer(200, {
          contact: { id: contactId, email: write.email, history: history(contactId, 150) },
          note: null,
          error: fault.transient
            ? { code: "NOTE_SERVICE_UNAVAILABLE", message: "The note was not saved: service unavailable, try again." }
            : { code: "NOTE_REJECTED", message: "The note was not saved: it was rejected by a validation rule." },
        });
      }
      case "partial":
        if (n > fault.times) return ok();
        this.apply("contact", contactId, key);
        return answer(200, {
          results: [
            { ref: "contact", status: 200, id: contactId },
            {
              ref: "note",
              status: fault.status,
              errors: [
                fault.status === 503
                  ? { errorCode: "SERVICE_UNAVAILABLE", message: "Try again later." }
                  : { errorCode: "FIELD_CUSTOM_VALIDATION_EXCEPTION", message: "Note body rejected." },
              ],
            },
          ],
        });
      case "held-out":
        if (n > fault.times) return ok();
        this.apply("contact", contactId, key);
        return heldOut(fault.shape, Number.isFinite(fault.times));
      case "false-alarm":
        ok();
        return answer(200, falseAlarmBody(fault.shape, contactId));
      case "forbidden-batch":
        return answer(200, {
          results: [
            {
              ref: "contact",
              status: 403,
              errors: [{ errorCode: "INSUFFICIENT_ACCESS", message: "Insufficient access." }],
            },
            {
              ref: "note",
              status: 403,
              errors: [{ errorCode: "INSUFFICIENT_ACCESS", message: "Insufficient access." }],
            },
          ],
        });
    }
  }
}

/** A held-out failure answer: the note was not saved; `transient` says so in the service's words. */
function heldOut(shape: "code-msg" | "html-200" | "multistatus", transient: boolean): CrmAnswer {
  if (shape === "code-msg")
    return answer(
      200,
      transient ? { code: 5003, msg: "system busy, retry later" } : { code: 4001, msg: "note body rejected" },
    );
  if (shape === "html-200")
    return {
      ...answer(200, undefined, { "content-type": "text/html" }),
      body: `<!DOCTYPE html><html><head><title>${transient ? "503 Service Temporarily Unavailable" : "400 Bad Request"}</title></head><body><h1>${transient ? "Service Temporarily Unavailable" : "Bad Request"}</h1></body></html>`,
    };
  return {
    ...answer(207, {
      multistatus: [
        { href: "/contact", status: "HTTP/1.1 200 OK" },
        { href: "/note", status: transient ? "HTTP/1.1 423 Locked" : "HTTP/1.1 422 Unprocessable Entity" },
      ],
    }),
    statusText: "Multi-Status",
  };
}

/** A successful answer whose data looks like failures: the audit's false-alarm probes. */
function falseAlarmBody(shape: "audit-log" | "log-hits" | "empty-errors", contactId: string): unknown {
  const results = [
    { ref: "contact", status: 200, id: contactId },
    { ref: "note", status: 201, id: `note-${contactId}` },
  ];
  if (shape === "audit-log")
    return {
      results,
      recentLogins: [
        { id: "evt_1", actor: contactId, action: "user.login", success: false, at: "2026-01-04T10:00:00Z" },
      ],
    };
  if (shape === "log-hits")
    return {
      results,
      syncLog: [
        { timestamp: "2026-01-04T10:00:00Z", level: "error", message: "previous sync bounced", error: "mailbox_full" },
      ],
    };
  return { results, error: null, errors: [], warnings: [] };
}

function answer(status: number, body: unknown, headers: Record<string, string> = {}): CrmAnswer {
  return {
    status,
    statusText: STATUS_TEXT[status] ?? "",
    headers: { "content-type": "application/json", ...headers },
    body,
  };
}

/** What the CRM says happened to one run's writes. */
export interface GroundTruth {
  /** Writes whose contact was updated and whose note exists. */
  readonly landed: number;
  /** Notes created more than once (extra copies). */
  readonly duplicates: number;
  /** Every write landed exactly once. */
  readonly exact: boolean;
}

/**
 * What the CRM applied for a run's writes, whatever any framework or model said.
 *
 * @example
 * ```ts
 * const truth = groundTruth(plan, crm); // { landed: 5, duplicates: 0, exact: true }
 * ```
 */
export function groundTruth(plan: RunPlan, crm: FakeCrm): GroundTruth {
  let landed = 0;
  let duplicates = 0;
  for (const w of plan.writes) {
    const notes = crm.notes.get(w.contactId) ?? 0;
    if (notes > 0 && crm.contacts.has(w.contactId)) landed++;
    if (notes > 1) duplicates += notes - 1;
  }
  return { landed, duplicates, exact: landed === plan.writes.length && duplicates === 0 };
}
