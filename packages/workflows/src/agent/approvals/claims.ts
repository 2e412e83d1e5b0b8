export {
  FileResumedCheckpointStore,
  InMemoryResumedCheckpointStore,
  type ResumedCheckpointStore,
} from "@needlework/durable";
