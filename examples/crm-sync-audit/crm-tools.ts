import { AgentFunction, AgentFunctionGroup, type ToolContext } from "@needlework/core";
import { z } from "zod";
import { CrmDirectory } from "./fake-crm.js";

const Crm = z.enum(["salesforce", "hubspot"]).describe("Which CRM to write to.");

const UpdateContact = z.object({
  crm: Crm,
  contactId: z.string().describe("The contact's id in that CRM."),
  changes: z
    .object({
      // A partial update: the model sets only what changes. Optional fields keep the tool out of
      // OpenAI's strict mode, which this adapter accepts (the invoker still validates every call).
      // eslint-disable-next-line needlework/strict-schema
      email: z.string().optional().describe("The new email; leave out to keep it."),
      // eslint-disable-next-line needlework/strict-schema
      title: z.string().optional().describe("The new job title; leave out to keep it."),
    })
    .describe("The fields to set."),
});
const CreateTask = z.object({
  crm: Crm,
  contactId: z.string().describe("The contact's id in that CRM."),
  subject: z.string().describe("What the task is about."),
  dueDate: z.string().describe("ISO date, like 2025-07-01."),
});
const PostNote = z.object({
  crm: Crm,
  contactId: z.string().describe("The contact's id in that CRM."),
  body: z.string().describe("The note's text."),
});

/**
 * The CRM sync agent's tools. Both audit modes use this same adapter: it calls the vendor and lets
 * vendor errors propagate as the SDKs throw them. What the model reads of a failure is decided
 * outside it (a raw try/catch, or needlework's pipeline). Each write passes the call's idempotency
 * key downstream, so a runtime retry of a timed-out write cannot apply it twice: hence `idempotent`.
 */
@AgentFunctionGroup({ inject: [CrmDirectory] })
export class CrmTools {
  constructor(private readonly crms: CrmDirectory) {}

  @AgentFunction({
    name: "update_contact",
    description: "Sets fields of a contact in Salesforce or HubSpot.",
    input: UpdateContact,
    idempotent: true,
    maxResultTokens: 120,
  })
  updateContact(args: z.infer<typeof UpdateContact>, ctx: ToolContext) {
    return this.crms.get(args.crm).write("update_contact", args, ctx);
  }

  @AgentFunction({
    name: "create_task",
    description: "Creates a follow-up task on a contact.",
    input: CreateTask,
    idempotent: true,
    maxResultTokens: 120,
  })
  createTask(args: z.infer<typeof CreateTask>, ctx: ToolContext) {
    return this.crms.get(args.crm).write("create_task", args, ctx);
  }

  @AgentFunction({
    name: "post_note",
    description: "Posts an activity note on a contact.",
    input: PostNote,
    idempotent: true,
    maxResultTokens: 120,
  })
  postNote(args: z.infer<typeof PostNote>, ctx: ToolContext) {
    return this.crms.get(args.crm).write("post_note", args, ctx);
  }
}
