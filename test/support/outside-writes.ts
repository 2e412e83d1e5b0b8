// Vitest global setup: the suite (docs programs, examples, packaging tests, browsers) may write only
// inside the clone and the temporary folder. Before the run it lists the places an application or a
// careless example writes to (/var/lib, /srv, /opt, /etc, /usr/local, /data, the home folder, ...), two
// levels deep; after the run, any new entry there fails the run, named. Package managers' caches in the
// home folder (npm, pnpm, corepack) are expected: the README's own command fills them.
import { readdirSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const clone = resolve(fileURLToPath(new URL("../..", import.meta.url)));

/** Where files must not appear. The clone and the temporary folder are never listed. */
export function watchedRoots(home = homedir()): string[] {
  return [...new Set(["/var/lib", "/var/log", "/srv", "/opt", "/etc", "/usr/local", "/data", "/mnt", "/root", home])];
}

/** Entries that tools write on their own and a test cannot avoid: package-manager caches and stores. */
const EXPECTED = [
  /\/\.npm(\/|$)/,
  /\/\.cache\/(pnpm|node|corepack|typescript)(\/|$)/,
  /\/\.local\/share\/pnpm(\/|$)/,
  /\/\.local\/state\/pnpm(\/|$)/,
  /\/\.pnpm-store(\/|$)/,
  /\/\.cache\/node\/corepack(\/|$)/,
  /\/\.node_repl_history$/,
  // The package manager's own database, which other processes on a shared machine may also change.
  /^\/var\/lib\/(apt|dpkg|ucf|systemd)(\/|$)/,
  /^\/var\/log\/(apt|dpkg\.log|alternatives\.log)/,
  /^\/etc\/(alternatives|ld\.so\.cache)/,
  // The machine's own services (the databases and brokers the tests talk to) keep their data and logs there.
  /^\/var\/(lib|log)\/(postgresql|redis|mosquitto|rabbitmq|mysql|nats-server)(\/|\.|$)/,
];

/** Every path under `roots`, `depth` levels deep, except the clone and the temporary folder. */
export function listing(roots: readonly string[], depth = 2): Set<string> {
  const skip = new Set([clone, resolve(tmpdir()), "/tmp", "/var/tmp", "/proc", "/sys", "/dev"]);
  const seen = new Set<string>();
  const walk = (dir: string, level: number): void => {
    let entries: import("node:fs").Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return; // missing or unreadable: nothing can be said about it
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (skip.has(path)) continue;
      seen.add(path);
      if (level < depth && entry.isDirectory()) walk(path, level + 1);
    }
  };
  for (const root of roots) if (!skip.has(root)) walk(root, 1);
  return seen;
}

/** New paths of `after` that are not in `before`, expected tool caches left out. */
export function newPaths(before: ReadonlySet<string>, after: ReadonlySet<string>): string[] {
  return [...after].filter((path) => !before.has(path) && !EXPECTED.some((pattern) => pattern.test(path))).sort();
}

export default function setup(): () => void {
  const roots = watchedRoots();
  const before = listing(roots);
  return () => {
    const left = newPaths(before, listing(roots));
    if (left.length > 0)
      throw new Error(
        `The test suite left ${left.length} path(s) outside the clone and the temporary folder (write under the working folder or os.tmpdir(), and remove it):\n${left.join("\n")}`,
      );
  };
}
