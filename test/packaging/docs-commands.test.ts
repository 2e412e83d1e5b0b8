// Every shell command a docs page tells a reader to run, taken from the page and run as written (bash,
// line by line, `set -e`) from a fresh pack: getting started's install block from a clone, then each
// page's install in a fresh app beside the tarballs it made, then what the pages run in those apps.
// Commands that run inside this repository (the demo, the benchmarks, the examples) are listed below
// with the test that runs them, or checked for what they name (a package, a script, a file).
//
// The "clone" is a copy of this repository's workspace as `npx -y pnpm@10 install && npx -y pnpm@10
// build` leaves it (manifests, the built packages and their workspace links): that one line is the
// precondition of every packaging test (`pnpm test` builds first) and is the only line not run here.
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { extractTsBlocks } from "../../docs/doc-check/extract.js";
import { repoRoot } from "../../scripts/pack-packages.js";
import { findSystemNode } from "./system-node.js";
import { run } from "./temp-app.js";

/** One ```sh block of a page: where it is and its text. */
interface ShellBlock {
  readonly page: string;
  readonly line: number;
  readonly text: string;
}

/** Every ```sh / ```bash / ```shell block of README.md and docs/*.md. */
function shellBlocks(): ShellBlock[] {
  const pages = [
    "README.md",
    ...readdirSync(join(repoRoot, "docs"))
      .filter((f) => f.endsWith(".md"))
      .map((f) => `docs/${f}`),
  ];
  const blocks: ShellBlock[] = [];
  for (const page of pages) {
    const lines = readFileSync(join(repoRoot, page), "utf8").split("\n");
    for (let i = 0; i < lines.length; i++) {
      if (!/^```(sh|bash|shell)\s*$/.test(lines[i]!)) continue;
      const start = i + 1;
      while (i + 1 < lines.length && !lines[i + 1]!.startsWith("```")) i++;
      blocks.push({ page, line: start, text: lines.slice(start, i + 1).join("\n") });
      i++;
    }
  }
  return blocks;
}

/** The one block of `page` whose text starts with `start`. */
function block(page: string, start: string): string {
  const found = shellBlocks().filter((b) => b.page === page && b.text.startsWith(start));
  if (found.length !== 1) throw new Error(`${page} has ${found.length} shell blocks starting "${start}", not one`);
  return found[0]!.text;
}

/** Where each block runs: `app` blocks run here as written; `repo` blocks are checked for what they name. */
const WHERE: readonly { page: string; start: string; how: "app" | "repo"; why: string }[] = [
  { page: "docs/getting-started.md", start: "cd needlework", how: "app", why: "the install, run here" },
  { page: "docs/getting-started.md", start: "npx tsx app.ts", how: "app", why: "run in the app the install made" },
  { page: "docs/shaping.md", start: "npm install", how: "app", why: "run in a fresh app" },
  { page: "docs/run-stores.md", start: "npm install", how: "app", why: "run in a fresh app" },
  { page: "docs/remote-tools.md", start: "npm install", how: "app", why: "run in a fresh app" },
  { page: "docs/inspector.md", start: "npm install", how: "app", why: "run in a fresh app" },
  { page: "docs/inspector.md", start: "npx needlework-inspector", how: "app", why: "run in the inspector's app" },
  {
    page: "docs/truncation-and-redaction.md",
    start: "npm install gpt-tokenizer",
    how: "app",
    why: "run in the getting-started app",
  },
  {
    page: "README.md",
    start: "npx -y pnpm@10 install",
    how: "repo",
    why: "the demo: test/first-hour/demo-runner.test.ts; scripts checked",
  },
  {
    page: "docs/benchmarks.md",
    start: "npx -y pnpm@10 install",
    how: "repo",
    why: "benchmarks take minutes: scripts checked",
  },
  { page: "docs/durable-runs.md", start: "npx -y pnpm@10", how: "repo", why: "a chaos run of minutes: script checked" },
  {
    page: "docs/examples.md",
    start: "npx -y pnpm@10 build",
    how: "repo",
    why: "examples' own tests run them: scripts checked",
  },
  {
    page: "docs/remote-tools.md",
    start: "npx toolbox",
    how: "repo",
    why: "Google's MCP Toolbox, a third-party binary",
  },
  {
    page: "docs/remote-tools.md",
    start: "npx -y pnpm@10 --filter",
    how: "repo",
    why: "needs the Toolbox binary: script checked",
  },
];

// npm's own settings, not the commands': the registry cache first, no audit or funding lines.
const npmEnv = (): NodeJS.ProcessEnv => {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith("VITEST") && key !== "NODE_PATH"),
  );
  return {
    ...env,
    npm_config_prefer_offline: "true",
    npm_config_audit: "false",
    npm_config_fund: "false",
    npm_config_loglevel: "error",
  };
};

/** Runs a page's block as written, with bash, stopping at the first failing line. */
const sh = (script: string, cwd: string, env = npmEnv()) => run("bash", ["-euo", "pipefail", "-c", script], cwd, env);

/** A copy of this workspace as `install && build` leaves it: what `pnpm pack` reads, with the workspace links. */
function cloneAsBuilt(clone: string): void {
  for (const file of ["package.json", "pnpm-workspace.yaml"]) cpSync(join(repoRoot, file), join(clone, file));
  for (const dir of ["examples", "bench"])
    cpSync(join(repoRoot, dir, "package.json"), join(clone, dir, "package.json"));
  for (const name of readdirSync(join(repoRoot, "packages"))) {
    const from = join(repoRoot, "packages", name);
    cpSync(from, join(clone, "packages", name), { recursive: true, filter: (path) => !path.includes("node_modules") });
    const links = join(from, "node_modules", "@needlework");
    if (!existsSync(links)) continue;
    mkdirSync(join(clone, "packages", name, "node_modules", "@needlework"), { recursive: true });
    for (const link of readdirSync(links))
      symlinkSync(readlinkSync(join(links, link)), join(clone, "packages", name, "node_modules", "@needlework", link));
  }
}

/** A fresh app folder beside the tarballs, as a reader makes one (`npm init -y`, ES modules). */
async function freshApp(root: string, name: string): Promise<string> {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  await sh("npm init -y >/dev/null && npm pkg set type=module", dir);
  return dir;
}

const installed = (app: string, name: string) =>
  existsSync(join(app, "node_modules", "@needlework", name, "package.json"));

describe("every command the docs tell a reader to run, as written, from a fresh pack", { timeout: 900_000 }, () => {
  let root = "";
  let app = "";

  beforeAll(async () => {
    if (!existsSync(join(repoRoot, "packages", "workflows", "dist", "index.js")))
      throw new Error("the packages are not built: run `npx -y pnpm@10 build` first (`pnpm test` does).");
    root = mkdtempSync(join(tmpdir(), "needlework-docs-"));
    cloneAsBuilt(join(root, "needlework"));
    const install = block("docs/getting-started.md", "cd needlework");
    const skipped = "npx -y pnpm@10 install && npx -y pnpm@10 build";
    expect(install.split("\n")).toContain(skipped);
    await sh(install.replace(`${skipped}\n`, ""), root);
    app = join(root, "my-app");
  }, 900_000);

  afterAll(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  }, 120_000);

  it("knows where every shell block of the docs runs (a new block must be added here)", () => {
    const unknown = shellBlocks().filter((b) => !WHERE.some((w) => w.page === b.page && b.text.startsWith(w.start)));
    expect(unknown.map((b) => `${b.page}:${b.line}`)).toEqual([]);
  });

  it("getting started's install block installs every tarball the packed packages need (npm ls finds nothing missing)", async () => {
    for (const name of ["core", "durable", "otel", "shaping", "workflows"])
      expect(installed(app, name), name).toBe(true);
    await sh("npm ls --all >/dev/null", app);
  });

  it("getting started runs with `npx tsx app.ts` in the app that block made; truncation's `npm install gpt-tokenizer` installs", async () => {
    const page = readFileSync(join(repoRoot, "docs", "getting-started.md"), "utf8");
    const files: Record<string, string> = {};
    for (const b of extractTsBlocks("docs/getting-started.md", page)) {
      const named = /^\/\/ ([\w.-]+\.ts)\n/.exec(b.code)?.[1];
      if (named) files[named] = b.code;
    }
    const step3 = extractTsBlocks("docs/getting-started.md", page.slice(page.indexOf("## 3. Run an agent")))[0]?.code;
    files["app.ts"] = `${files["app.ts"]}\n${step3}\n`;
    for (const name of ["order-tools.ts", "app.ts"]) writeFileSync(join(app, name), files[name]!);
    const { stdout } = await sh(block("docs/getting-started.md", "npx tsx app.ts"), app);
    expect(stdout).toContain("completed_with_failures");
    await sh(block("docs/truncation-and-redaction.md", "npm install gpt-tokenizer"), app);
    expect(existsSync(join(app, "node_modules", "gpt-tokenizer"))).toBe(true);
  });

  it.concurrent.each([
    ["docs/shaping.md", ["core", "shaping"]],
    ["docs/run-stores.md", ["core", "durable"]],
    ["docs/remote-tools.md", ["core", "durable", "otel", "shaping", "workflows", "mcp"]],
  ] as const)("%s's install runs as written in a fresh app", async (page, packages) => {
    const dir = await freshApp(root, page.replace(/\W/g, "-"));
    await sh(block(page, "npm install"), dir);
    for (const name of packages) expect(installed(dir, name), name).toBe(true);
    await sh("npm ls --all >/dev/null", dir);
  });

  it.concurrent("docs/inspector.md's install and command run as written: the bin names a database host it cannot find", async () => {
    const dir = await freshApp(root, "inspector-app");
    await sh(block("docs/inspector.md", "npm install"), dir);
    await sh("npm ls --all >/dev/null", dir);
    // postgres://app@db.internal:5432/app: a host this machine does not know. One line that says what to do.
    const command = block("docs/inspector.md", "npx needlework-inspector");
    const failed = await sh(command, dir).then(
      () => "",
      (error: Error) => error.message,
    );
    expect(failed).toContain("DATABASE_UNREACHABLE");
    expect(failed).toContain("--database-url");
    expect(failed).not.toMatch(/\n\s+at /);
  });

  it.concurrent("the Vitest the docs name for each Node: Vitest 5 on this Node, Vitest 4 on Node 20, each passing the page's test", async (context) => {
    const page = readFileSync(join(repoRoot, "docs", "getting-started.md"), "utf8");
    const test = extractTsBlocks("docs/getting-started.md", page).find((b) =>
      b.code.startsWith("// order-tools.test.ts"),
    );
    const tsconfig = /```json\n([\s\S]*?)```/.exec(page.slice(page.indexOf("## Run it")))?.[1];
    expect(test && tsconfig).toBeTruthy();
    const setUp = (dir: string) => {
      writeFileSync(join(dir, "order-tools.test.ts"), test!.code);
      writeFileSync(join(dir, "tsconfig.json"), tsconfig!);
    };
    // This Node (24): `npm install -D vitest` in the getting-started app.
    setUp(app);
    await sh("npm install -D vitest", app);
    const here = JSON.parse(readFileSync(join(app, "node_modules", "vitest", "package.json"), "utf8")) as {
      version: string;
    };
    expect(here.version).toMatch(/^5\./);
    expect((await sh("npx vitest run", app)).stdout).toMatch(/1 passed/);
    // Node 20: the same command with the machine's Node 20 first on PATH gives Vitest 4.
    const node20 = findSystemNode(20);
    if (!node20) {
      if (process.env.NEEDLEWORK_REQUIRE_NODE20 === "1") throw new Error("no Node 20 found on this machine");
      context.skip("no Node 20 on this machine (outside node_modules); CI has one and fails without it");
      return;
    }
    const dir = join(root, "node20-app");
    // The app before its Vitest: the tarballs and the page's files, no lockfile.
    cpSync(app, dir, {
      recursive: true,
      filter: (path) => !path.includes(join(app, "node_modules")) && !path.endsWith("package-lock.json"),
    });
    await sh("npm pkg delete devDependencies.vitest", dir);
    const env = { ...npmEnv(), PATH: `${join(node20.path, "..")}:${process.env.PATH ?? ""}` };
    await sh("npm install && npm install -D vitest", dir, env);
    const there = JSON.parse(readFileSync(join(dir, "node_modules", "vitest", "package.json"), "utf8")) as {
      version: string;
    };
    expect(there.version).toMatch(/^4\./);
    expect((await sh("npx vitest run", dir, env)).stdout).toMatch(/1 passed/);
  });

  it("the repository's commands name packages, scripts and files that exist", () => {
    const manifest = (dir: string) =>
      JSON.parse(readFileSync(join(repoRoot, dir, "package.json"), "utf8")) as {
        name: string;
        scripts?: Record<string, string>;
      };
    const workspaces = new Map(["", "examples", "bench"].map((dir) => [manifest(dir).name, manifest(dir)]));
    const root = manifest("");
    for (const b of shellBlocks().filter(
      (x) => WHERE.find((w) => w.page === x.page && x.text.startsWith(w.start))?.how === "repo",
    )) {
      for (const line of b.text.split("\n").map((l) => l.replace(/#.*$/, "").trim())) {
        for (const m of line.matchAll(/npx -y pnpm@10 (?:--silent )?(?:--filter (\S+) )?(?:run )?([\w:-]+)/g)) {
          const [, filter, script] = m;
          if (script === "install" || script === "-r" || (script === "build" && !filter)) continue;
          const target = filter ? workspaces.get(filter) : root;
          expect(target, `${b.page}:${b.line} names ${filter}`).toBeDefined();
          expect(Object.keys(target!.scripts ?? {}), `${b.page}:${b.line} runs '${script}'`).toContain(script);
        }
        const file = /^node (\S+\.js)/.exec(line)?.[1];
        if (file) expect(file, `${b.page}:${b.line}`).toMatch(/^examples\/dist\//);
      }
    }
  });
});
