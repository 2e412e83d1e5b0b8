import { NeedleworkError } from "@needlework/core";
import type { BuildDiagnostic } from "../plugin.js";

/** `buildAgentFactory()` refused the composition; `diagnostics` lists every finding. */
export class AgentFrameworkBuildError extends NeedleworkError {
  // Named here, not by the bundler (which may emit `_AgentFrameworkBuildError`): `name` and `isInstance` read it.
  static {
    Object.defineProperty(AgentFrameworkBuildError, "name", { value: "AgentFrameworkBuildError" });
  }
  constructor(
    message: string,
    readonly diagnostics: readonly BuildDiagnostic[],
  ) {
    super("BUILD_ERROR", message);
  }
}
