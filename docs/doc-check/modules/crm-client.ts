// `import { CrmClient } from "./crm-client.js"` in the docs: an application's CRM HTTP client.
/** A CRM client whose calls throw HTTP errors (`status` 403, 409, 429, ...) as vendor SDKs do. */
export class CrmClient {
  async updateContact(
    args: { contactId: string; email?: string },
    options: { signal?: AbortSignal; idempotencyKey?: string } = {},
  ): Promise<{ contactId: string; updated: true }> {
    options.signal?.throwIfAborted();
    return { contactId: args.contactId, updated: true };
  }
}
