import "reflect-metadata";
import { runOpenAIExample } from "./main.js";

// The entry run by `node examples/dist/openai.js` (set OPENAI_BASE_URL, and OPENAI_API_KEY for OpenAI itself).
// main.ts only exports, so importing it never runs it.
if (!(await runOpenAIExample(process.env, console.log))) process.exitCode = 1;
