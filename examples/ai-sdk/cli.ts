import "reflect-metadata";
import { runAiSdkExample } from "./main.js";

// The entry run by `node examples/dist/ai-sdk.js`. main.ts only exports, so importing it never runs it, and no
// entry-point detection can fail through a symlink or a path with a space.
await runAiSdkExample();
