// The docs site's navigation: ONE list. A new page goes into the section where a reader would look for
// it (docs/site.test.ts fails, naming the page, while a page under docs/ is in no section). Each entry is
// a page's path under docs/; its title is the page's first `# ` heading.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const docsDir = fileURLToPath(new URL("..", import.meta.url));

/** A sidebar section: its title and its pages (paths under docs/, `.md` included). */
export interface SidebarSection {
  readonly text: string;
  readonly pages: readonly string[];
  /** Starts folded (long lists such as the ESLint rules). */
  readonly collapsed?: boolean;
  /** Also every page of this folder under docs/ (its README aside), sorted by file name. */
  readonly folder?: string;
}

export const SECTIONS: readonly SidebarSection[] = [
  {
    text: "Getting started",
    pages: ["README.md", "getting-started.md", "examples.md"],
  },
  {
    text: "Guides",
    pages: [
      "declaring-tools.md",
      "invoking-tools.md",
      "remote-tools.md",
      "builder-and-plugins.md",
      "tool-result-middleware.md",
      "resilience.md",
      "truncation-and-redaction.md",
      "artifacts.md",
      "shaping.md",
      "agent-loop.md",
      "streaming.md",
      "agents-and-groups.md",
      "budgets-and-stalls.md",
      "approvals.md",
      "prompt-injection.md",
      "dead-letters.md",
      "durable-runs.md",
      "durable-execution.md",
      "run-stores.md",
      "inspector.md",
      "diagnostics-and-tracing.md",
      "testing-your-tools.md",
      "security.md",
      "reliability.md",
    ],
  },
  {
    text: "Adapters",
    pages: ["adapters/openai.md", "adapters/ai-sdk.md", "adapters/mcp.md", "dbos.md", "restate.md", "temporal.md"],
  },
  {
    text: "Reference",
    pages: [
      "reference/index.md",
      "build-diagnostics.md",
      "eslint/README.md",
      "benchmarks.md",
      "benchmark-history.md",
      "architecture.md",
    ],
  },
  // Every page of docs/eslint/ but its README: a new rule's page is listed without an edit here.
  { text: "ESLint rules", collapsed: true, pages: [], folder: "eslint" },
  {
    text: "Troubleshooting",
    pages: ["troubleshooting.md"],
  },
];

/**
 * A section's pages, its folder's pages (README aside, sorted) after the listed ones.
 *
 * @example
 * sectionPages(SECTIONS[0]!); // ["README.md", "getting-started.md", "examples.md"]
 */
export function sectionPages(section: SidebarSection): string[] {
  const inFolder = section.folder
    ? readdirSync(join(docsDir, section.folder))
        .filter((name) => name.endsWith(".md") && name !== "README.md")
        .sort()
        .map((name) => `${section.folder}/${name}`)
    : [];
  return [...section.pages, ...inFolder];
}
