import "reflect-metadata";
import { startLiveRunServer } from "./server.js";

// `pnpm demo:live`: PORT picks the port (default: a free one).
const { url } = await startLiveRunServer({ port: Number(process.env["PORT"] ?? 0) });
console.log(`live run page: ${url}  (each page load streams a new CRM sync run; Ctrl+C to stop)`);
