import "reflect-metadata";
import { runOrderLookup } from "./main.js";

// The entry run by `node examples/dist/order-lookup.js`; main.ts only exports, so the demo can import it without running it twice.
await runOrderLookup();
