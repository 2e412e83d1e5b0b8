import { runPromptInjectionExample } from "./main.js";

await runPromptInjectionExample();
