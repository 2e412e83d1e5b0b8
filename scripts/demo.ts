// `pnpm demo`, `pnpm demo:live`, `pnpm demo:inspector`: checks the port a demo serves
// on before any build, rebuilds only the packages whose sources changed since their last build (their
// dependents too), then runs the demo. Ctrl+C ends it quietly. Runs on Node 24 (node strips the types).
//
// A content hash, not file times, decides what is stale: a fresh clone or a `git checkout` touches every
// file's time, and a hash of ~40k lines costs a few milliseconds. Written here rather than taken from a
// build orchestrator (turbo, nx): those need a daemon or a cache folder of their own, for 8 packages.
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join, relative } from "node:path";
import { repoRoot } from "./pack-packages.ts";

interface Demo {
  /** The built entry under examples/ that runs it. */
  readonly entry: string;
  /** The port it serves on (PORT overrides; without either, a free one), checked before anything is built. */
  readonly port?: number;
}

const demos = new Map<string, Demo>([
  ["demo", { entry: "dist/demo.js" }],
  ["demo:live", { entry: "dist/live-run.js" }],
  ["demo:inspector", { entry: "dist/inspector.js", port: 4600 }],
]);

/** Fails before any build, naming the port and the option that changes it. */
async function requireFreePort(port: number, script: string): Promise<void> {
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    console.error(`PORT must be a port number (0-65535), got '${process.env["PORT"]}'.`);
    process.exit(2);
  }
  const free = await new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
  if (!free) {
    console.error(
      `Port ${port} is already in use (another ${script} still running?). Stop it, or pick another port: PORT=${port + 1} pnpm ${script}`,
    );
    process.exit(1);
  }
}

interface Workspace {
  readonly dir: string;
  readonly name: string;
  readonly deps: readonly string[];
}

/** The packages under packages/ that the examples use, dependencies before dependents. */
function packagesInBuildOrder(): Workspace[] {
  const all = readdirSync(join(repoRoot, "packages"), { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(join(repoRoot, "packages", e.name, "package.json")))
    .map((e) => {
      const dir = join(repoRoot, "packages", e.name);
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
        name: string;
        dependencies?: Record<string, string>;
        peerDependencies?: Record<string, string>;
      };
      const deps = Object.keys({ ...pkg.dependencies, ...pkg.peerDependencies }).filter((d) =>
        d.startsWith("@needlework/"),
      );
      return { dir, name: pkg.name, deps };
    });
  const byName = new Map(all.map((w) => [w.name, w]));
  const ordered: Workspace[] = [];
  const seen = new Set<string>();
  const visit = (name: string) => {
    const w = byName.get(name);
    if (w === undefined || seen.has(name)) return;
    seen.add(name);
    for (const d of w.deps) visit(d);
    ordered.push(w);
  };
  const examples = JSON.parse(readFileSync(join(repoRoot, "examples", "package.json"), "utf8")) as {
    dependencies?: Record<string, string>;
  };
  for (const name of Object.keys(examples.dependencies ?? {})) visit(name);
  return ordered;
}

/** A hash of every file under `dir` that a build reads (sources, configs), plus `extra`. */
function sourceHash(dir: string, extra: readonly string[]): string {
  const hash = createHash("sha256");
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.name === "node_modules" || entry.name === "dist" || entry.name.startsWith(".")) continue;
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.(ts|tsx|mts|js|mjs|json|html|css|svg)$/.test(entry.name) && !/\.test(-d)?\.ts$/.test(entry.name)) {
        hash.update(relative(dir, path)).update("\0").update(readFileSync(path)).update("\0");
      }
    }
  };
  walk(dir);
  for (const file of extra) hash.update(file).update("\0").update(readFileSync(file));
  return hash.digest("hex");
}

const STAMP = ".source-hash";

function isFresh(dir: string, hash: string): boolean {
  const stamp = join(dir, "dist", STAMP);
  return existsSync(stamp) && statSync(stamp).isFile() && readFileSync(stamp, "utf8") === hash;
}

function build(dir: string, label: string, hash: string): void {
  const started = Date.now();
  const why = existsSync(join(dir, "dist", STAMP)) ? "its sources changed since the last build" : "not built yet";
  process.stdout.write(`building ${label} (${why})... `);
  // The pnpm that runs this script (npx -y pnpm@10 puts none on PATH), else the one on PATH.
  const pnpm = process.env["npm_execpath"];
  const [command, args] = pnpm ? [process.execPath, [pnpm]] : ["pnpm", []];
  const result = spawnSync(command, [...args, "--silent", "run", "build"], {
    cwd: dir,
    stdio: ["ignore", "ignore", "pipe"],
    encoding: "utf8",
  });
  if (result.signal !== null) {
    // Ctrl+C during a build: the user stopped it; end quietly (the next demo builds it again).
    console.log("stopped");
    process.exit(0);
  }
  if (result.status !== 0) {
    console.log("failed");
    console.error(result.stderr);
    process.exit(1);
  }
  mkdirSync(join(dir, "dist"), { recursive: true });
  writeFileSync(join(dir, "dist", STAMP), hash);
  console.log(`${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** Builds each stale package and every package that depends on one, then the examples. */
function buildWhatChanged(): void {
  const shared = [
    join(repoRoot, "tsup.package.ts"),
    join(repoRoot, "tsconfig.build.json"),
    join(repoRoot, "tsconfig.json"),
  ];
  const rebuilt = new Set<string>();
  for (const w of packagesInBuildOrder()) {
    const hash = sourceHash(w.dir, shared);
    if (isFresh(w.dir, hash) && !w.deps.some((d) => rebuilt.has(d))) continue;
    build(w.dir, w.name, hash);
    rebuilt.add(w.name);
  }
  const dir = join(repoRoot, "examples");
  // The examples bundle imports the packages' dist/ at run time (they stay external), so only its own
  // sources decide.
  const hash = sourceHash(dir, shared);
  if (!isFresh(dir, hash)) build(dir, "the examples", hash);
}

/** Runs the demo on this Node; Ctrl+C (or SIGTERM) ends it with exit 0 and no package-manager noise. */
async function runQuietly(entry: string): Promise<void> {
  const cwd = join(repoRoot, "examples");
  const child = spawn(process.execPath, [join(cwd, entry), ...process.argv.slice(3)], { stdio: "inherit", cwd });
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
  const code = await new Promise<number>((resolve) => child.on("exit", (c) => resolve(c ?? 0)));
  process.exit(interrupted ? 0 : code);
}

// Ctrl+C reaches the whole process group (this script, a build, the demo): remember it, and let the
// children end, rather than dying here with a status pnpm reports as "Command failed".
let interrupted = false;
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.on(signal, () => {
    interrupted = true;
  });

const name = process.argv[2] ?? "";
const demo = demos.get(name);
if (demo === undefined) {
  console.error(`scripts/demo.ts: unknown demo '${name}'. Known: ${[...demos.keys()].join(", ")}.`);
  process.exit(2);
}

const port = process.env["PORT"] ?? demo.port;
if (port !== undefined) await requireFreePort(Number(port), name);
buildWhatChanged();
await runQuietly(demo.entry);
