/**
 * Where progress goes: a terminal (`isTTY`) gets one line redrawn in place, anything else plain lines.
 *
 * @example
 * ```ts
 * const out: ProgressOutput = process.stderr;
 * ```
 */
export interface ProgressOutput {
  write(text: string): unknown;
  readonly isTTY?: boolean;
}

/**
 * Progress of `total` steps: on a terminal a bar redrawn in place with `\r` (at most once per
 * percent), otherwise a plain line every quarter, so CI logs and pipes stay readable.
 *
 * @example
 * ```ts
 * const progress = createProgress("audit", 1000, process.stderr);
 * for (let i = 1; i <= 1000; i++) progress.update(i);
 * progress.done();
 * ```
 */
export function createProgress(
  label: string,
  total: number,
  out: ProgressOutput,
): { update(done: number): void; done(): void } {
  const tty = out.isTTY === true;
  const width = 30;
  let shown = -1;
  let line = "";
  return {
    update(done) {
      const step = tty ? Math.floor((100 * done) / total) : Math.floor((4 * done) / total);
      if (step === shown) return;
      shown = step;
      if (!tty) {
        out.write(`${label}: ${done}/${total} runs\n`);
        return;
      }
      const filled = Math.round((width * done) / total);
      line = `${label} [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${done}/${total} runs`;
      out.write(`\r${line}`);
    },
    done() {
      // Erase the bar: the report printed next starts on a clean line.
      if (tty && line !== "") out.write(`\r${" ".repeat(line.length)}\r`);
    },
  };
}
