import {checkpointResume} from '../../ops/resume.js'
import {agentFlag, defineCommandSpec} from '../flag-spec.js'

/** `mem resume`: flags only. */
export const resumeSpec = defineCommandSpec({
  operation: checkpointResume,
  words: false,
  flags: {
    ...agentFlag,
    id: {
      kind: 'string',
      description: 'Checkpoint id [default: the latest].',
      helpValue: 'CHECKPOINT_ID',
      field: 'checkpoint_id',
    },
    'on-missing': {
      kind: 'string',
      description: 'When nothing is saved: "error" (exit 3) or "empty" (a found: false result).',
      default: 'error',
      helpValue: 'error|empty',
    },
    messages: {kind: 'boolean', description: 'Also show the saved conversation messages.', field: 'include_messages'},
    'last-messages': {
      kind: 'integer',
      description: 'Show only the last N saved messages (implies --messages).',
      helpValue: 'N',
    },
  },
  async input(_words, flags) {
    return {
      agent_id: flags.agent,
      checkpoint_id: flags.id,
      on_missing: flags['on-missing'],
      include_messages: flags.messages,
      last_messages: flags['last-messages'],
    }
  },
})
