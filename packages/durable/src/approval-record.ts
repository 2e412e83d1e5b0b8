// The record is core's (`@needlework/core/events`): a checkpoint's journal carries it.
export type { ApprovalRecord } from "@needlework/core/events";
