import { NeedleworkError } from "@needlework/core";
import type { BuildDiagnostic } from "../plugin.js";

/** `buildAgentFactory()` refused the composition; `diagnostics` lists every finding. */
export class AgentFrameworkBuildError extends NeedleworkError {
  constructor(
    message: string,
    readonly diagnostics: readonly BuildDiagnostic[],
  ) {
    super("BUILD_ERROR", message);
  }
}
