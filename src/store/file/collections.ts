import {CheckpointRecord, FactRecord} from '../records.js'

/**
 * The two collections of an agent folder and their segment bounds. A fact segment closes at
 * 1,000 facts or 512 KiB, so adding a fact rewrites at most that much, however many facts
 * the agent has (docs/adr/0003-storage-layout.md).
 */
export const FACT_SEGMENT = {
  kind: 'mem.facts',
  folder: 'facts',
  record: FactRecord,
  maxRecords: 1000,
  maxBytes: 512 * 1024,
} as const
export const CHECKPOINT_SEGMENT = {
  kind: 'mem.checkpoints',
  folder: 'checkpoints',
  record: CheckpointRecord,
  maxRecords: 100,
  maxBytes: 4 * 1024 * 1024,
} as const
