import "reflect-metadata";
import { runOrderLookup } from "./order-lookup/main.js";

console.log("needlework demo: what the model reads for each tool call\n");
await runOrderLookup();
