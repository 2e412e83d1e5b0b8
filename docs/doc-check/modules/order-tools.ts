// `import { OrderTools } from "./order-tools.js"` in the docs: the order tools of examples/order-lookup.
// (This file is copied next to the compiled blocks, in examples/node_modules/.cache/doc-blocks-<pid>/.)
export { type Order, OrderRepository, OrderTools } from "../../../order-lookup/order-tools.js";
