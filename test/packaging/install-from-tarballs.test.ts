// Installs the packed packages into fresh apps outside the repository, the way docs/getting-started.md tells a
// user to install from a clone, and runs them: ESM and CommonJS compiled by tsc with legacy decorators (on this
// Node 24 and on the machine's Node 20), standard decorators under tsx, and a consumer type-check under
// TypeScript 7 and a strict one (no @types/node, skipLibCheck off), a Vitest 5 project set up as
// docs/getting-started.md says, and the run inspector's bin. Needs the packages built (`pnpm build`; `pnpm test` builds first) and the npm registry for
// third-party dependencies. One npm install serves every app: they are folders of one consumer project.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PackedPackage, packPackages, repoRoot } from "../../scripts/pack-packages.js";
import { extractTsBlocks } from "../../docs/doc-check/extract.js";
import { endProcessGroup, spawnInGroup } from "../support/process-group.js";
import { findSystemNode } from "./system-node.js";
import { run, writeApp } from "./temp-app.js";

const fixture = (path: string) => join(repoRoot, "test", "packaging", "fixtures", path);
const repoBin = (path: string) => join(repoRoot, "node_modules", path);

/** The third-party versions a consumer installs: the ones the packages are tested against in this repo. */
function peerVersions(packed: readonly PackedPackage[]): Record<string, string> {
  const wanted = ["reflect-metadata", "tsyringe", "zod", "openai", "ai", "@modelcontextprotocol/sdk"];
  const versions: Record<string, string> = {};
  for (const { directory } of packed) {
    const manifest = JSON.parse(readFileSync(join(directory, "package.json"), "utf8")) as {
      devDependencies?: Record<string, string>;
    };
    for (const [name, range] of Object.entries(manifest.devDependencies ?? {}))
      if (wanted.includes(name) && !range.startsWith("workspace:")) versions[name] ??= range;
  }
  return versions;
}

const legacyTsconfig = (module: "nodenext") => ({
  compilerOptions: {
    target: "es2022",
    module,
    moduleResolution: module,
    strict: true,
    experimentalDecorators: true,
    emitDecoratorMetadata: true,
    skipLibCheck: true,
    types: [],
    outDir: "out",
  },
  include: ["app.ts"],
});

/**
 * The files docs/getting-started.md tells a user to write, taken from the page as written: each ```ts block
 * whose first line names its file (`// order-tools.ts`), step 3's block appended to `app.ts`, and the
 * tsconfig.json of "Run it".
 */
function gettingStartedFiles(): { files: Record<string, string>; tsconfig: string } {
  const page = readFileSync(join(repoRoot, "docs", "getting-started.md"), "utf8");
  const files: Record<string, string> = {};
  for (const block of extractTsBlocks("docs/getting-started.md", page)) {
    const named = /^\/\/ ([\w.-]+\.ts)\n/.exec(block.code)?.[1];
    if (named) files[named] = block.code;
  }
  const step3 = page.slice(page.indexOf("## 3. Run an agent"));
  const continued = extractTsBlocks("docs/getting-started.md", step3)[0]?.code;
  if (!files["order-tools.ts"] || !files["app.ts"] || !files["order-tools.test.ts"] || !continued)
    throw new Error("docs/getting-started.md no longer has order-tools.ts, app.ts, step 3 and order-tools.test.ts");
  files["app.ts"] = `${files["app.ts"]}\n${continued}\n`;
  const runIt = page.slice(page.indexOf("## Run it"));
  const tsconfig = /```json\n([\s\S]*?)```/.exec(runIt)?.[1];
  if (!tsconfig) throw new Error("docs/getting-started.md's Run it has no tsconfig.json block");
  return { files, tsconfig };
}

function writePageApp(dir: string, files: Record<string, string>, tsconfig?: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), `${JSON.stringify({ private: true, type: "module" }, null, 2)}\n`);
  if (tsconfig !== undefined) writeFileSync(join(dir, "tsconfig.json"), tsconfig);
  for (const [name, code] of Object.entries(files)) writeFileSync(join(dir, name), code);
}

const EXPECTED_OUTCOME = '"error_code":"ORDER_NOT_FOUND"';
const EXPECTED_RUN = "completed Order ORD-1 has shipped.";

describe("the packed packages installed into fresh apps", { timeout: 600_000 }, () => {
  let root = "";
  let app = "";

  beforeAll(async () => {
    for (const name of ["core", "shaping", "workflows", "otel", "openai", "ai-sdk", "mcp"])
      if (!existsSync(join(repoRoot, "packages", name, "dist", "index.js")))
        throw new Error(`packages/${name} is not built: run \`pnpm build\` first (\`pnpm test\` does).`);
    root = mkdtempSync(join(tmpdir(), "needlework-apps-"));
    // The ESLint plugin has its own app (eslint-plugin.test.ts): typescript-eslint needs TypeScript's JS API,
    // which TypeScript 7, this consumer's compiler, does not offer.
    const packed = packPackages(join(root, "tarballs")).filter((p) => p.name !== "@needlework/eslint-plugin");
    app = join(root, "consumer");
    const ours = Object.fromEntries(packed.map((p) => [p.name, `file:${p.tarball}`]));
    writeApp(
      app,
      {
        name: "needlework-consumer",
        dependencies: { ...ours, ...peerVersions(packed) },
        devDependencies: { typescript: "^7.0.0", vitest: "^5.1.1" },
        // A packed package names its siblings by version (pnpm turns workspace:* into 0.1.0): point those at
        // the tarballs installed above instead of the registry, where nothing is published yet.
        overrides: Object.fromEntries(packed.map((p) => [p.name, `$${p.name}`])),
      },
      {},
    );
    await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"], app);
    writeApp(join(app, "esm"), { type: "module" }, { "app.ts": fixture("legacy/app.ts") }, legacyTsconfig("nodenext"));
    writeApp(join(app, "cjs"), { type: "commonjs" }, { "app.ts": fixture("cjs/app.ts") }, legacyTsconfig("nodenext"));
    writeApp(
      join(app, "standard"),
      { type: "module" },
      { "app.ts": fixture("standard/app.ts") },
      { compilerOptions: { target: "es2022", module: "nodenext", strict: true, skipLibCheck: true } },
    );
    writeApp(
      join(app, "types"),
      { type: "module" },
      { "consumer.ts": fixture("types/consumer.ts") },
      { ...legacyTsconfig("nodenext"), include: ["consumer.ts"] },
    );
    writeApp(
      join(app, "types-strict"),
      { type: "module" },
      { "consumer.ts": fixture("types-strict/consumer.ts") },
      {
        compilerOptions: {
          target: "es2022",
          module: "nodenext",
          strict: true,
          types: [],
          skipLibCheck: false,
          experimentalDecorators: true,
          noEmit: true,
        },
        include: ["consumer.ts"],
      },
    );
    // Vitest 5 as `npm init` + `npm i -D vitest` leaves it: no vitest.config, the tsconfig of `tsc --init`
    // (standard decorators). The docs' fix is added by the test below.
    writeApp(
      join(app, "vitest5"),
      { type: "module", scripts: { test: "vitest run" } },
      { "order.spec.ts": fixture("vitest5/order.spec.ts") },
      { compilerOptions: { target: "es2022", module: "nodenext", strict: true, skipLibCheck: true } },
    );
    writeApp(
      join(app, "store-contract"),
      { type: "module", scripts: { test: "vitest run" } },
      { "store.spec.ts": fixture("store-contract/store.spec.ts") },
      { compilerOptions: { target: "es2022", module: "nodenext", strict: true, skipLibCheck: true } },
    );
    // Compile the two legacy-decorator apps with the repository's TypeScript, side by side.
    const tsc = repoBin("typescript/bin/tsc");
    await Promise.all(["esm", "cjs"].map((dir) => run(process.execPath, [tsc, "-p", "."], join(app, dir))));
  }, 600_000);

  afterAll(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  }, 120_000);

  it.concurrent("runs the quick start as an ESM app compiled by tsc (legacy decorators + metadata)", async () => {
    const { stdout } = await run(process.execPath, ["out/app.js"], join(app, "esm"));
    expect(stdout).toContain(EXPECTED_OUTCOME);
    expect(stdout).toContain(EXPECTED_RUN);
  });

  it.concurrent("runs the quick start as a CommonJS app, loading the .cjs builds", async () => {
    const { stdout } = await run(process.execPath, ["out/app.js"], join(app, "cjs"));
    expect(stdout).toContain(EXPECTED_OUTCOME);
    expect(stdout).toContain(`${EXPECTED_RUN} (commonjs)`);
  });

  it.concurrent("runs core and workflows on the machine's Node 20 (ESM and CommonJS)", async (context) => {
    const node20 = findSystemNode(20);
    if (!node20) {
      // CI sets NEEDLEWORK_REQUIRE_NODE20=1 (.ci/run): there the check must run, never skip.
      if (process.env.NEEDLEWORK_REQUIRE_NODE20 === "1") throw new Error("no Node 20 found on this machine");
      context.skip("no Node 20 on this machine (outside node_modules); CI has one and fails without it");
      return;
    }
    for (const dir of ["esm", "cjs"]) {
      const { stdout } = await run(node20.path, ["out/app.js"], join(app, dir));
      expect(stdout, `${dir} on ${node20.version}`).toContain(EXPECTED_RUN);
    }
  });

  it("runs the quick start with standard decorators and `inject` under tsx", async () => {
    const { stdout } = await run(process.execPath, [repoBin("tsx/dist/cli.mjs"), "app.ts"], join(app, "standard"));
    expect(stdout).toContain(EXPECTED_OUTCOME);
    expect(stdout).toContain(EXPECTED_RUN);
  });

  it.concurrent("type-checks a strict consumer: no @types/node, skipLibCheck false, no `ai` for the chat client", async () => {
    const tsc7 = join(app, "node_modules", "typescript", "bin", "tsc");
    await run(process.execPath, [tsc7, "-p", "."], join(app, "types-strict"));
  });

  it("runs a Vitest 5 test of a tool class once tsconfig has the docs' `experimentalDecorators`", async () => {
    const dir = join(app, "vitest5");
    const vitest = join(app, "node_modules", "vitest", "vitest.mjs");
    // Outside this repository's own Vitest run: none of its VITEST_* variables may leak into the child.
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("VITEST")));
    // As installed: Oxc leaves the TC39 decorators in place and the file fails to load.
    await expect(run(process.execPath, [vitest, "run"], dir, env)).rejects.toThrow(
      /SyntaxError|Invalid or unexpected token/,
    );
    // As docs/getting-started.md says: experimentalDecorators in tsconfig.json, then clear Vitest's cache.
    const tsconfigPath = join(dir, "tsconfig.json");
    const tsconfig = JSON.parse(readFileSync(tsconfigPath, "utf8")) as { compilerOptions: Record<string, unknown> };
    tsconfig.compilerOptions.experimentalDecorators = true;
    writeFileSync(tsconfigPath, `${JSON.stringify(tsconfig, null, 2)}\n`);
    await run(process.execPath, [vitest, "--clearCache"], dir, env);
    const { stdout } = await run(process.execPath, [vitest, "run"], dir, env);
    expect(stdout).toMatch(/1 passed/);
  });

  it("runs the run-store contract suites from the installed @needlework/durable/testing (a store outside the repository)", async () => {
    const vitest = join(app, "node_modules", "vitest", "vitest.mjs");
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("VITEST")));
    const { stdout } = await run(process.execPath, [vitest, "run"], join(app, "store-contract"), env);
    expect(stdout).toMatch(/\d+ passed/);
    expect(stdout).not.toMatch(/failed/);
  });

  it("serves the run inspector from the installed bin, its page's files included", async () => {
    const runs = join(app, "runs");
    mkdirSync(runs, { recursive: true });
    const bin = join(app, "node_modules", ".bin", "needlework-inspector");
    // The bin is a launcher (`#!/usr/bin/env node`, and `node` may itself be a shell script on PATH): the
    // server is a process under it. Its own process group, ended as a whole and waited for (issue 53).
    const child = spawnInGroup(bin, ["--directory", runs, "--port", "0"], {
      cwd: app,
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let output = "";
        const read = (chunk: Buffer) => {
          output += chunk.toString("utf8");
          const found = /open (http:\/\/\S+)/.exec(output)?.[1];
          if (found) resolve(found);
        };
        child.stdout?.on("data", read);
        child.stderr?.on("data", read);
        child.once("exit", (code) => reject(new Error(`needlework-inspector exited ${code}: ${output}`)));
      });
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      for (const file of ["", "app.js", "timeline.js", "style.css", "timeline.css"])
        expect((await fetch(new URL(file, url))).status, file).toBe(200);
      expect(await (await fetch(new URL("api/runs", url))).json()).toEqual({ runs: [] });
    } finally {
      await endProcessGroup(child);
    }
  });

  it.concurrent("installs no gpt-tokenizer (an optional peer); usingTruncation() and @needlework/shaping's countTokens then name the package to install", async () => {
    // docs/getting-started.md installs no tokenizer; docs/truncation-and-redaction.md says to add it to truncate.
    expect(existsSync(join(app, "node_modules", "gpt-tokenizer"))).toBe(false);
    const dir = join(app, "no-tokenizer");
    const body = `
      try { usingAgentFramework().usingTruncation(); console.log("no error"); }
      catch (error) { console.log(error.code, error.message); }`;
    // @needlework/shaping on its own (no builder): what needs no tokens works, counting names the package.
    const alone = `
      console.log(createRedactor().redactText("mail ana@example.com"));
      try { countTokens("Where is ORD-1?"); console.log("no error"); }
      catch (error) { console.log(error.code, error.message); }`;
    writePageApp(dir, {
      "app.mjs": `import "reflect-metadata";\nconst { usingAgentFramework } = await import("@needlework/workflows");\n${body}\n`,
      "app.cjs": `require("reflect-metadata");\nconst { usingAgentFramework } = require("@needlework/workflows");\n${body}\n`,
      "shaping.mjs": `import { countTokens, createRedactor } from "@needlework/shaping";\n${alone}\n`,
      "shaping.cjs": `const { countTokens, createRedactor } = require("@needlework/shaping");\n${alone}\n`,
    });
    // pnpm puts its own store on NODE_PATH, where this repository's gpt-tokenizer is: not in a user's app.
    const { NODE_PATH: _, ...env } = process.env;
    for (const file of ["app.mjs", "app.cjs", "shaping.mjs", "shaping.cjs"]) {
      const { stdout } = await run(process.execPath, [file], dir, env);
      expect(stdout, file).toContain("TOKENIZER_NOT_INSTALLED");
      expect(stdout, file).toContain("npm install gpt-tokenizer");
    }
    for (const file of ["shaping.mjs", "shaping.cjs"])
      expect((await run(process.execPath, [file], dir, env)).stdout, file).toContain("mail [REDACTED:email]");
  });

  it.concurrent("type-checks a consumer of every package under TypeScript 7", async () => {
    const tsc7 = join(app, "node_modules", "typescript", "bin", "tsc");
    const { stdout } = await run(process.execPath, [tsc7, "--version"], app);
    expect(stdout).toMatch(/Version 7\./);
    await run(process.execPath, [tsc7, "-p", ".", "--noEmit"], join(app, "types"));
  });

  it.concurrent("names every exported error class as documented (ESM and CommonJS); isInstance knows another installed copy's", async () => {
    // Two installed copies: the app's, and a second copy of its @needlework folder beside the check.
    const dir = join(app, "error-names");
    const scope = join(app, "node_modules", "@needlework");
    mkdirSync(join(dir, "second", "node_modules"), { recursive: true });
    for (const file of ["check.mjs", "load.mjs"]) cpSync(fixture(`error-names/${file}`), join(dir, file));
    cpSync(fixture("error-names/load.mjs"), join(dir, "second", "load.mjs"));
    cpSync(scope, join(dir, "second", "node_modules", "@needlework"), { recursive: true, dereference: true });
    const { stdout } = await run(process.execPath, ["check.mjs", scope], dir);
    const { checked, problems } = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as {
      checked: string[];
      problems: string[];
    };
    expect(problems).toEqual([]);
    for (const format of ["esm", "cjs"])
      for (const known of [
        "@needlework/core NeedleworkError",
        "@needlework/durable RunStoreError",
        "@needlework/workflows CheckpointError",
      ]) {
        const [entry, name] = known.split(" ");
        expect(checked).toContain(`${entry} (${format}) ${name}`);
      }
  });

  describe("docs/getting-started.md as written", () => {
    const { files, tsconfig } = gettingStartedFiles();
    const { "order-tools.test.ts": testFile, ...program } = files;
    const expectRun = (stdout: string) => {
      expect(stdout).toContain("error ORDER_NOT_FOUND");
      expect(stdout).toContain("completed_with_failures");
      expect(stdout).toContain("blocking_failure: true");
    };

    it("runs under tsx (`npx tsx app.ts`)", async () => {
      const dir = join(app, "page-tsx");
      writePageApp(dir, program);
      expectRun((await run(process.execPath, [repoBin("tsx/dist/cli.mjs"), "app.ts"], dir)).stdout);
    });

    it("runs under tsc with metadata, with the page's tsconfig.json (`npx tsc && node out/app.js`)", async () => {
      const dir = join(app, "page-tsc");
      writePageApp(dir, program, tsconfig);
      // The TypeScript `npm install -D typescript` gave the app.
      await run(process.execPath, [join(app, "node_modules", "typescript", "bin", "tsc")], dir);
      expectRun((await run(process.execPath, ["out/app.js"], dir)).stdout);
    });

    it("runs the page's Vitest 5 test with the page's tsconfig.json (`npx vitest run`)", async () => {
      const dir = join(app, "page-vitest");
      writePageApp(dir, { "order-tools.ts": program["order-tools.ts"]!, "order-tools.test.ts": testFile! }, tsconfig);
      const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("VITEST")));
      const { stdout } = await run(
        process.execPath,
        [join(app, "node_modules", "vitest", "vitest.mjs"), "run"],
        dir,
        env,
      );
      expect(stdout).toMatch(/1 passed/);
    });
  });
});
