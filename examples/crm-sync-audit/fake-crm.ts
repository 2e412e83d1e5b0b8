import type { CrmName, FaultKind, RunPlan, WriteTool } from "./fault-plan.js";

/** Virtual time: a vendor's Retry-After second is waited as this many real milliseconds. */
export const MS_PER_VIRTUAL_SECOND = 1;

/** An HTTP error as the vendors' SDKs throw it: status, vendor JSON and request line in the message. */
export class CrmHttpError extends Error {
  constructor(
    name: string,
    readonly status: number,
    message: string,
    /** 429 only: Retry-After, scaled to virtual time. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = name;
  }
}

/** The SDK's own request timeout: the CRM may or may not have applied the write. */
export class CrmTimeoutError extends Error {
  readonly code = "ETIMEDOUT";
  constructor(message: string) {
    super(message);
    this.name = "RequestTimeoutError";
  }
}

/** One request a fake CRM received: the ground truth the audit measures. */
export interface CrmRequest {
  readonly key: string;
  readonly callId: string;
  /** The model turn that asked for the call (from the call id `t<turn>-w<write>`). */
  readonly turn: number;
  /** `applied`, `replayed` (an idempotency key seen before), or the fault that was injected. */
  readonly result: "applied" | "replayed" | FaultKind;
  /** The request changed the CRM (also true for a timed-out request that was applied anyway). */
  readonly applied: boolean;
}

/** What a tool passes along with a write. */
export interface WriteRequest {
  readonly callId: string;
  readonly idempotencyKey: string;
}

const HUBSPOT_KEY = "hapikey=6f1c2a9e-41d7-4b8e-9c3a-harbor-prod";
const SF_HOST = "https://harbor.my.salesforce.com/services/data/v59.0";

/**
 * An in-process CRM that applies writes and injects the faults of one run's plan. It keeps the
 * ground truth: which writes landed, how often, and every request with the turn it came from.
 */
export class FakeCrm {
  readonly requests: CrmRequest[] = [];
  private readonly appliedCount = new Map<string, number>();
  private readonly replies = new Map<string, unknown>();
  private readonly seen = new Map<string, number>();
  private readonly timedOut = new Map<string, number>();
  private version = 0;

  constructor(
    readonly name: CrmName,
    readonly plan: RunPlan,
  ) {}

  /** How many times the write was applied (0 = it did not land; 2+ = duplicates). */
  applied(key: string): number {
    return this.appliedCount.get(key) ?? 0;
  }

  async write(tool: WriteTool, args: Record<string, unknown>, request: WriteRequest): Promise<unknown> {
    await Promise.resolve(); // a network hop, however short
    const contactId = String(args["contactId"]);
    const key = `${tool}:${this.name}:${contactId}`;
    const n = (this.seen.get(key) ?? 0) + 1;
    this.seen.set(key, n);
    const turn = Number(/^t(\d+)-/.exec(request.callId)?.[1] ?? 0);
    const fault = this.plan.faults[key];
    if (fault && (fault.permanent === true || n <= fault.failures)) {
      let applied = false;
      if (fault.kind === "timeout") {
        const i = this.timedOut.get(key) ?? 0;
        this.timedOut.set(key, i + 1);
        // Applied server-side although the client gave up; a key seen before is not applied twice.
        applied = fault.landed?.[i] === true && !this.replies.has(request.idempotencyKey);
        if (applied) this.apply(key, tool, args, request);
      }
      this.requests.push({ key, callId: request.callId, turn, result: fault.kind, applied });
      throw this.error(fault.kind, tool, contactId, fault.retryAfterS ?? 1);
    }
    const replay = this.replies.get(request.idempotencyKey);
    if (replay !== undefined) {
      this.requests.push({ key, callId: request.callId, turn, result: "replayed", applied: false });
      return replay;
    }
    const reply = this.apply(key, tool, args, request);
    this.requests.push({ key, callId: request.callId, turn, result: "applied", applied: true });
    return reply;
  }

  private apply(key: string, tool: WriteTool, args: Record<string, unknown>, request: WriteRequest): unknown {
    this.appliedCount.set(key, this.applied(key) + 1);
    const reply = this.reply(tool, args, ++this.version);
    this.replies.set(request.idempotencyKey, reply);
    return reply;
  }

  private url(tool: WriteTool, contactId: string): string {
    if (this.name === "salesforce")
      return `${SF_HOST}/sobjects/${tool === "create_task" ? "Task" : `Contact/${contactId}`}`;
    return `https://api.hubapi.com/crm/v3/objects/${tool === "post_note" ? "notes" : `contacts/${contactId}`}?${HUBSPOT_KEY}`;
  }

  /** The vendor's error, worded as its API and SDK word it. */
  private error(kind: FaultKind, tool: WriteTool, contactId: string, retryAfterS: number): Error {
    const line = `(${tool === "update_contact" ? "PATCH" : "POST"} ${this.url(tool, contactId)})`;
    if (kind === "timeout") return new CrmTimeoutError(`ETIMEDOUT: no response within 30000 ms ${line}`);
    const sf = this.name === "salesforce";
    const name = sf ? "SalesforceApiError" : "HubSpotApiError";
    const id = `${this.plan.run}-${contactId}`;
    switch (kind) {
      case "forbidden":
        return new CrmHttpError(
          name,
          403,
          sf
            ? `HTTP 403 Forbidden: [{"message":"insufficient access rights on cross-reference id: ${contactId}","errorCode":"INSUFFICIENT_ACCESS_ON_CROSS_REFERENCE_ENTITY"}] ${line}`
            : `HTTP 403 Forbidden: {"status":"error","message":"This app hasn't been granted all required scopes to make this call.","category":"MISSING_SCOPES","correlationId":"${id}"} ${line}`,
        );
      case "locked":
        return new CrmHttpError(
          name,
          409,
          sf
            ? `HTTP 409 Conflict: [{"message":"unable to obtain exclusive access to this record or 1 records: ${contactId}","errorCode":"UNABLE_TO_LOCK_ROW"}] ${line}`
            : `HTTP 409 Conflict: {"status":"error","message":"Contact ${contactId} is locked by another process","category":"CONFLICT","correlationId":"${id}"} ${line}`,
        );
      case "rate_limited":
        return new CrmHttpError(
          name,
          429,
          sf
            ? `HTTP 429 Too Many Requests: [{"message":"TotalRequests Limit exceeded.","errorCode":"REQUEST_LIMIT_EXCEEDED"}] Retry-After: ${retryAfterS} ${line}`
            : `HTTP 429 Too Many Requests: {"status":"error","message":"You have reached your secondly limit.","errorType":"RATE_LIMIT","policyName":"SECONDLY"} Retry-After: ${retryAfterS} ${line}`,
          retryAfterS * MS_PER_VIRTUAL_SECOND,
        );
      case "server_error":
        return new CrmHttpError(
          name,
          500,
          sf
            ? `HTTP 500 Internal Server Error: [{"message":"An unexpected error occurred. Please include this ErrorId if you contact support: ${id}","errorCode":"UNKNOWN_EXCEPTION"}] ${line}`
            : `HTTP 500 Internal Server Error: {"status":"error","message":"internal error","correlationId":"${id}"} ${line}`,
        );
    }
  }

  /** A success body the size vendors send: the whole record and its recent field history. */
  private reply(tool: WriteTool, args: Record<string, unknown>, version: number): unknown {
    const contactId = String(args["contactId"]);
    const changes = (args["changes"] ?? {}) as Record<string, unknown>;
    const modified = `2025-06-${String(1 + (this.plan.run % 28)).padStart(2, "0")}T10:${String(version % 60).padStart(2, "0")}:00.000Z`;
    const history = Array.from({ length: 12 }, (_, i) => ({
      field: i % 2 ? "Title" : "Email",
      oldValue: `previous-${i}`,
      changedBy: "integration@harbor.example",
      changedAt: `2025-05-${String(1 + i).padStart(2, "0")}T09:00:00.000Z`,
    }));
    if (this.name === "salesforce") {
      if (tool === "create_task")
        return {
          id: `00T5g0000${this.plan.run}${version}`,
          success: true,
          errors: [],
          record: {
            attributes: { type: "Task" },
            WhoId: contactId,
            Subject: args["subject"],
            ActivityDate: args["dueDate"],
            Status: "Not Started",
            Priority: "Normal",
            OwnerId: "0055g00000Harbor",
            CreatedDate: modified,
          },
        };
      return {
        id: contactId,
        success: true,
        errors: [],
        record: {
          attributes: { type: "Contact", url: `/services/data/v59.0/sobjects/Contact/${contactId}` },
          Id: contactId,
          Email: changes["email"],
          Title: changes["title"],
          Phone: "+1 415 555 0134",
          MailingCity: "Oakland",
          OwnerId: "0055g00000Harbor",
          AccountId: "0015g00000Acct",
          LeadSource: "Partner",
          LastModifiedDate: modified,
          SystemModstamp: modified,
        },
        fieldHistory: history,
      };
    }
    if (tool === "post_note")
      return {
        id: `${90_000_000 + this.plan.run * 100 + version}`,
        properties: { hs_note_body: args["body"], hs_timestamp: modified, hubspot_owner_id: "4711" },
        associations: { contacts: [contactId] },
        createdAt: modified,
        archived: false,
      };
    return {
      id: contactId,
      properties: {
        email: changes["email"],
        jobtitle: changes["title"],
        phone: "+1 415 555 0134",
        city: "Oakland",
        lifecyclestage: "customer",
        hs_object_id: contactId,
        lastmodifieddate: modified,
      },
      propertiesWithHistory: {
        email: history
          .filter((h) => h.field === "Email")
          .map((h) => ({ value: h.oldValue, timestamp: h.changedAt, sourceType: "INTEGRATION" })),
      },
      createdAt: "2023-02-14T08:00:00.000Z",
      updatedAt: modified,
      archived: false,
    };
  }
}

/** The two CRMs of one run, as the tools reach them (registered per run in the DI container). */
export class CrmDirectory {
  constructor(readonly crms: Readonly<Record<CrmName, FakeCrm>>) {}

  get(name: CrmName): FakeCrm {
    return this.crms[name];
  }
}
