import { ORDER_1KB, RECORDS_10KB } from "./src/lib/shape-tools.js";
const mod = await import(process.argv[2]!);
const toJsonSafe = mod.toJsonSafe;
function t(name: string, f: () => unknown, n = 200000) {
  for (let i = 0; i < 20000; i++) f();
  let best = Infinity;
  for (let r = 0; r < 5; r++) { const s = process.cpuUsage(); for (let i = 0; i < n; i++) f(); const u = process.cpuUsage(s); best = Math.min(best, ((u.user + u.system) * 1000) / n); }
  console.log(name.padEnd(30), best.toFixed(0), "ns");
}
t("order toJsonSafe", () => toJsonSafe(ORDER_1KB), 50000);
t("rec10k toJsonSafe", () => toJsonSafe(RECORDS_10KB), 5000);
