// `import { CrmTools } from "./crm-tools.js"` in the docs: the CRM tools of examples/crm-sync-audit
// (update_contact, create_task, post_note).
export { CrmTools } from "../../../crm-sync-audit/crm-tools.js";
