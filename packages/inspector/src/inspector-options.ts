/*
 * startInspector's options: their types, their schema, and the resolved settings the server runs with.
 */
import { InvalidOptionError } from "@needlework/core";
import { parseOptions } from "@needlework/core/kit";
import type { AgentStore, PayloadCodec } from "@needlework/durable";
import { payloadCodecOption } from "@needlework/durable";
import { z } from "zod";
import type { ActionLog } from "./action-log.js";
import type { InspectedAgent } from "./inspected-agent.js";

/**
 * Options of {@link startInspector}.
 *
 * @example
 * ```ts
 * const options: InspectorOptions = { store, port: 4600, codec: aesGcmCodec(key), agents: [support] };
 * ```
 */
export interface InspectorOptions {
  /** The store whose journal and dead letters to show: `PostgresStore`, `FileRunStore`, `InMemoryRunStore`. */
  readonly store: AgentStore;
  /** Default 4600; 0 picks a free port. */
  readonly port?: number;
  /** Default `127.0.0.1`. Any other address needs `token`. */
  readonly host?: string;
  /** The store's `PayloadCodec`: payloads are shown decoded only with it. */
  readonly codec?: PayloadCodec;
  /**
   * A secret every request must carry (`Authorization: Bearer <token>`; the printed URL carries it in
   * its fragment, which the page keeps). Required to listen on anything but loopback. At least 16
   * characters of `A-Z a-z 0-9 - . _ ~ + /` (a bearer token's alphabet).
   */
  readonly token?: string;
  /**
   * The agents whose runs the page may act on: approve or deny a paused run's calls
   * (`agent.resume`), resume an interrupted run (`agent.resumeRun`), replay a dead letter's call
   * (`agent.tools`). Matched by `agent.name`. Without them the page only reads (and acknowledges).
   */
  readonly agents?: readonly InspectedAgent[];
  /** Where actions are journaled with who and when. Default: beside the store (see {@link ActionLog}). */
  readonly actions?: ActionLog;
  /** How often the server looks at the store for changes to push to open pages, in ms. Default 1000. */
  readonly watchMs?: number;
}

/**
 * A running inspector.
 *
 * @example
 * ```ts
 * const inspector = await startInspector({ store });
 * console.log(`open ${inspector.url}`);
 * await inspector.close();
 * ```
 */
export interface Inspector {
  /** The page's address (with `#token=...` when a token is set). */
  readonly url: string;
  /** Stops listening and closes open connections; the store stays open (it is the caller's). */
  close(): Promise<void>;
}

export const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);
const TOKEN_ALPHABET = /^[A-Za-z0-9._~+/-]+=*$/;

const optionsSchema = z.strictObject({
  store: z.custom<AgentStore>(
    (v) =>
      typeof (v as AgentStore | null)?.journal?.read === "function" &&
      typeof (v as AgentStore).journal.list === "function" &&
      typeof (v as AgentStore).deadLetters?.list === "function",
    "must be a run store with a journal that lists runs (PostgresStore, FileRunStore, InMemoryRunStore)",
  ),
  port: z.int().min(0).max(65_535).optional(),
  host: z.string().min(1).optional(),
  codec: payloadCodecOption.optional(),
  token: z.string().optional(),
  agents: z
    .array(
      z.custom<InspectedAgent>(
        (v) =>
          typeof (v as InspectedAgent | null)?.name === "string" &&
          typeof (v as InspectedAgent).resume === "function" &&
          typeof (v as InspectedAgent).resumeRun === "function",
        "must be agents made by factory.createAgent()",
      ),
    )
    .optional(),
  actions: z
    .custom<ActionLog>(
      (v) => typeof (v as ActionLog | null)?.append === "function" && typeof (v as ActionLog).list === "function",
      "must have append(record) and list(query)",
    )
    .optional(),
  watchMs: z.int().min(10).max(60_000).optional(),
});

/**
 * The options' own properties only, on an object with no prototype: a polluted `Object.prototype`
 * (`Object.prototype.host = "0.0.0.0"`) must never give the inspector a host, a token or a route.
 */
function ownOptions(options: unknown): unknown {
  if (typeof options !== "object" || options === null) return options;
  const own: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const key of Object.keys(options)) own[key] = (options as Record<string, unknown>)[key];
  return own;
}

/** The settings a server runs with, read from the options' own properties, with the defaults. */
export interface InspectorSettings {
  readonly store: AgentStore;
  readonly port: number;
  readonly host: string;
  readonly codec: PayloadCodec | undefined;
  readonly token: string | undefined;
  readonly agents: readonly InspectedAgent[];
  readonly actions: ActionLog | undefined;
  readonly watchMs: number;
}

/** Checks `startInspector`'s options and fills in the defaults; a bad one throws `InvalidOptionError`. */
export function inspectorSettings(options: InspectorOptions): InspectorSettings {
  const given = ownOptions(options);
  // The token is checked here, not by the schema: a refused token is never quoted back.
  const rawToken = typeof given === "object" && given !== null ? (given as { token?: unknown }).token : undefined;
  if (
    rawToken !== undefined &&
    (typeof rawToken !== "string" || rawToken.length < 16 || !TOKEN_ALPHABET.test(rawToken))
  )
    throw new InvalidOptionError(
      "token",
      "[REDACTED:secret]",
      "startInspector: option 'token' must be a string of at least 16 characters of A-Z a-z 0-9 - . _ ~ + / (a bearer token); the value given is not shown.",
    );
  const parsed = parseOptions("startInspector", optionsSchema, given);
  // The parsed object is an ordinary one: read its own properties only (a polluted prototype has others).
  const own = <K extends keyof typeof parsed>(key: K): (typeof parsed)[K] | undefined =>
    Object.hasOwn(parsed, key) ? parsed[key] : undefined;
  const store = parsed.store;
  const port = own("port") ?? 4600;
  const host = own("host") ?? "127.0.0.1";
  const codec = own("codec");
  const token = own("token");
  const agents = own("agents") ?? [];
  const givenActions = own("actions");
  const watchMs = own("watchMs") ?? 1000;
  if (!LOOPBACK.has(host) && token === undefined)
    throw new InvalidOptionError(
      "token",
      undefined,
      `startInspector: refusing to listen on ${host} without a token: anyone who can reach it would read every run. Pass \`token\` (--token), or keep the default host 127.0.0.1.`,
    );
  return {
    store,
    port,
    host,
    codec,
    token,
    agents,
    actions: givenActions,
    watchMs,
  };
}
