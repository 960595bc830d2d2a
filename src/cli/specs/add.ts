import {memoryAdd} from '../../ops/add.js'
import {MemError} from '../../errors.js'
import {agentFlag, defineCommandSpec} from '../flag-spec.js'
import {joinWords, readStdin} from '../input.js'

/** `mem add`: the words are the fact, else stdin. */
export const addSpec = defineCommandSpec({
  operation: memoryAdd,
  words: true,
  wordsFill: {content: 'the fact text'},
  flags: {
    ...agentFlag,
    tag: {kind: 'string', char: 't', description: 'Tag the fact (repeat for several).', multiple: true, field: 'tags'},
    'allow-duplicate': {
      kind: 'boolean',
      description: 'Store it even if a live fact already says the same (ignoring case and spacing).',
    },
    thread: {
      kind: 'string',
      description: 'The conversation this fact is a turn of (a chat or session id); leave it out for standalone facts.',
      helpValue: 'THREAD',
    },
  },
  async input(words, flags) {
    const content = joinWords(words) ?? (await readStdin())?.trim() ?? ''
    if (content.trim() === '') {
      throw new MemError(
        'invalid_input',
        'no fact to remember: give its text as words (mem add Prefers pnpm), quoted (mem add "Prefers pnpm"), or on stdin (echo "Prefers pnpm" | mem add)',
      )
    }
    return {
      agent_id: flags.agent,
      content,
      tags: flags.tag,
      thread: flags.thread,
      allow_duplicate: flags['allow-duplicate'],
    }
  },
})
