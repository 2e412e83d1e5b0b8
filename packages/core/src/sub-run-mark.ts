import { AsyncLocalStorage } from "node:async_hooks";

/*
 * A trusted tool that runs a sub-agent and returns what it said hands the sub-run's reading on: if
 * the sub-run read untrusted content, the tool's outcome is untrusted content too (DESIGN, round
 * 4). An invoker with a gate (the injection policy) runs each call's pipeline in a scope (an
 * invoker without one skips it: about a microsecond a call that no decision would read); a run started inside it (whatever the
 * tool returns: the run's result, its output text, a summary) marks that scope when it reads
 * untrusted content, and the invoker marks the outcome. An AsyncLocalStorage, because the sub-run
 * is started by user code the framework never sees between the call and the run.
 */

/** The call whose pipeline is running, as a run started inside it sees it. @internal */
export class CallScope {
  /** A run started inside this call read untrusted content. */
  untrusted = false;
}

const scopes = new AsyncLocalStorage<CallScope>();

/** Runs `body` (a call's pipeline) in `scope`. @internal */
export function runInCallScope<T>(scope: CallScope, body: () => T): T {
  return scopes.run(scope, body);
}

/**
 * Called by a run that read untrusted content: the tool call it runs inside (a sub-agent's
 * caller), if any, is marked. A run not inside a call marks nothing. @internal
 */
export function markEnclosingCall(): void {
  const scope = scopes.getStore();
  if (scope !== undefined) scope.untrusted = true;
}

/** True when a run started inside the current call read untrusted content (for middleware). @internal */
export function enclosedRunReadUntrusted(): boolean {
  return scopes.getStore()?.untrusted === true;
}
