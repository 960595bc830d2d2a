/**
 * Bounds on what one call may store. They sit far above what agents write in practice and
 * keep every file small enough to stay fast; docs/reliability.md lists them for users.
 */
export const LIMITS = {
  agentIdLength: 64,
  contentLength: 16_000,
  tagCount: 32,
  tagLength: 64,
  threadLength: 64,
  queryLength: 2_000,
  reasonLength: 2_000,
  labelLength: 200,
  mergeCount: 100,
  /** Serialized JSON of a checkpoint's state plus messages. */
  checkpointBytes: 1024 * 1024,
  messageCount: 10_000,
  jsonDepth: 64,
  /**
   * One line of a file to import: a checkpoint line is at most about 1 MiB and a fact line far
   * less, but an entity of the MCP memory server holds all its observations.
   */
  importLineBytes: 16 * 1024 * 1024,
  /** One conversation of a ChatGPT or Claude conversations.json, read whole before its messages become turns. */
  importConversationBytes: 32 * 1024 * 1024,
} as const
