import {Flags} from '@oclif/core'

import {MemCommand, agentFlag} from '../cli/base-command.js'
import {parseJsonText, readStdin, readTextFile} from '../cli/input.js'
import {MemError} from '../errors.js'
import {checkpointSave} from '../ops/index.js'

interface Sourced {
  text: string
  source: string
}

export default class Save extends MemCommand {
  static override summary = "Save a checkpoint of a task's state."
  static override description =
    'The state is a JSON object, from --state, --state-file, or stdin. Resume it later with "mem resume".'
  static override examples = [
    'echo \'{"step":3,"todo":["x"]}\' | <%= config.bin %> save --agent alice',
    '<%= config.bin %> save --state \'{"step":3}\' --label "before refactor"',
    '<%= config.bin %> save --state-file state.json --messages-file chat.json',
  ]
  static override flags = {
    ...agentFlag,
    state: Flags.string({
      description: 'The state as JSON text (an object).',
      exclusive: ['state-file'],
      helpValue: 'JSON',
    }),
    'state-file': Flags.string({description: 'Read the state from this JSON file ("-" for stdin).', helpValue: 'FILE'}),
    messages: Flags.string({
      description: 'Conversation messages as a JSON array.',
      exclusive: ['messages-file'],
      helpValue: 'JSON',
    }),
    'messages-file': Flags.string({description: 'Read the messages (a JSON array) from this file.', helpValue: 'FILE'}),
    label: Flags.string({char: 'l', description: 'A short name for the checkpoint.'}),
  }

  async run(): Promise<unknown> {
    const {flags} = await this.parse(Save)
    const state = await this.stateText(flags.state, flags['state-file'])
    const messages = this.messagesText(flags.messages, flags['messages-file'])
    return this.runOp(
      checkpointSave,
      {
        agent_id: flags.agent,
        state: parseJsonText(state.text, state.source),
        messages: messages === undefined ? undefined : parseJsonText(messages.text, messages.source),
        label: flags.label,
      },
      flags.agent,
    )
  }

  /** The state's text, and where it came from in the words of the flags, for an error about it. */
  private async stateText(inline: string | undefined, file: string | undefined): Promise<Sourced> {
    if (inline !== undefined) return {text: inline, source: '--state'}
    const fromFile = file !== undefined && file !== '-'
    const text = fromFile ? readTextFile(file, 'state') : await readStdin()
    if (text === undefined || text.trim() === '') {
      throw new MemError(
        'invalid_input',
        'no state given: pass --state JSON, --state-file FILE, or pipe a JSON object on stdin',
      )
    }
    return {text, source: fromFile ? `the state file ${file}` : 'the state on stdin'}
  }

  private messagesText(inline: string | undefined, file: string | undefined): Sourced | undefined {
    if (inline !== undefined) return {text: inline, source: '--messages'}
    if (file === undefined) return undefined
    return {text: readTextFile(file, 'messages'), source: `the messages file ${file}`}
  }
}
