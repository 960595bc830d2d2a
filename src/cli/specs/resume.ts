import {checkpointResume} from '../../ops/resume.js'
import {agentFlag, defineCommandSpec} from '../flag-spec.js'

/** `mem resume`: flags only. */
export const resumeSpec = defineCommandSpec({
  operation: checkpointResume,
  words: false,
  flags: {
    ...agentFlag,
    id: {kind: 'string', description: 'Checkpoint id [default: the latest].', helpValue: 'CHECKPOINT_ID'},
    'on-missing': {kind: 'string', description: 'When nothing is saved: "error" (exit 3) or "empty" (a found: false result).', default: 'error', helpValue: 'error|empty'},
  },
  async input(_words, flags) {
    return {agent_id: flags.agent, checkpoint_id: flags.id, on_missing: flags['on-missing']}
  },
})
