// A dead-letter writer for the durability tests, run as its own process against the BUILT package
// (packages/workflows/dist), as an application would. It appends entries one after another and
// prints "ack <writer> <index>" on stdout once each append has resolved (written and fsynced).
//
// node dead-letter-writer.mjs <file> <writer> <count> <bigEvery> <bigBytes>
//   every <bigEvery>-th entry carries a payload of <bigBytes> bytes (0: never); the others 100-5000 bytes.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const dist = fileURLToPath(new URL("../../dist/index.js", import.meta.url));
if (!existsSync(dist)) {
  process.stderr.write(`dead-letter-writer: ${dist} is missing; build the packages first (pnpm run build).\n`);
  process.exit(2);
}
const { FileDeadLetterQueue } = await import(dist);

const [file, writer, countText, bigEveryText, bigBytesText] = process.argv.slice(2);
const count = Number(countText);
const bigEvery = Number(bigEveryText);
const bigBytes = Number(bigBytesText);

/** The payload of entry `index`: its length and content are derived from (writer, index), so a reader can check it is intact. */
function payloadOf(writerId, index, big, bigSize) {
  const size = big ? bigSize : 100 + ((index * 7919) % 4900);
  const unit = `${writerId}:${index};`;
  return unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
}

const queue = new FileDeadLetterQueue(file);
for (let index = 0; index < count; index++) {
  const big = bigEvery > 0 && index % bigEvery === bigEvery - 1;
  await queue.append({
    runId: `${writer}-${index}`,
    agent: writer,
    tool: "charge",
    arguments: { payload: payloadOf(writer, index, big, bigBytes) },
    errorCode: "UPSTREAM_ERROR",
    callIds: [`call-${index}`],
    outcomes: [],
    time: new Date(0).toISOString(),
    reason: `entry ${index} of ${writer}`,
  });
  process.stdout.write(`ack ${writer} ${index}\n`);
}
process.stdout.write(`done ${writer}\n`);
