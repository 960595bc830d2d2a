import {Args, Flags} from '@oclif/core'

import {MemCommand} from '../cli/base-command.js'
import {resolveHome} from '../cli/home.js'
import {MemError} from '../errors.js'
import {embedderFor} from '../meaning/open-meaning.js'
import {
  readMeaningSettings,
  writeMeaningSettings,
  type EmbedderChoice,
  type MeaningSettings,
} from '../meaning/settings.js'

export default class MeaningCommand extends MemCommand {
  static override summary = 'Turn ranking by meaning on or off, or show whether it is on.'
  static override description =
    'With meaning on, search ranks facts by what they mean as well as by their words, so "coffee" finds "espresso". ' +
    'It is off by default. Each fact needs a vector first: a server embeds new facts in the background, and "mem embed" embeds those already stored. ' +
    'The vectors come from the model shipped with mem, run in process, or from an OpenAI-compatible endpoint (--endpoint, --model; its key from MEM_EMBED_KEY or the 0600 file MEM_EMBED_KEY_FILE names). ' +
    'The setting holds for every command and server of this memory; MEM_MEANING=on or off overrides it for one process. See docs/search.md, "Meaning (optional)".'
  static override examples = [
    '<%= config.bin %> meaning',
    '<%= config.bin %> meaning on',
    '<%= config.bin %> meaning on --endpoint http://localhost:11434/v1 --model nomic-embed-text',
    '<%= config.bin %> meaning off',
  ]
  static override args = {
    switch: Args.string({description: 'on or off; none to show the setting.', options: ['on', 'off'], required: false}),
  }
  static override flags = {
    endpoint: Flags.string({
      description:
        'With on: take vectors from this OpenAI-compatible endpoint (its base URL) instead of the model shipped with mem.',
      helpValue: 'URL',
    }),
    model: Flags.string({description: 'With --endpoint: the model the endpoint embeds with.', helpValue: 'NAME'}),
  }

  async run(): Promise<unknown> {
    const {args, flags} = await this.parse(MeaningCommand)
    const home = resolveHome()
    if (args.switch === undefined) {
      if (flags.endpoint !== undefined || flags.model !== undefined)
        throw new MemError('invalid_input', '--endpoint and --model go with "mem meaning on"')
      return this.show(readMeaningSettings(home))
    }
    const embedder = choiceOf(args.switch === 'on', flags, readMeaningSettings(home, {}).embedder)
    writeMeaningSettings(home, args.switch === 'on', embedder)
    return this.show(readMeaningSettings(home))
  }

  private show(settings: MeaningSettings): unknown {
    const id = embedderFor(settings.embedder, {}).id
    const payload = {
      meaning: settings.on ? 'on' : 'off',
      from: settings.from,
      embedder: {...settings.embedder, id},
      ...(settings.problem === undefined ? {} : {problem: settings.problem}),
    }
    this.print(this.jsonMode ? JSON.stringify(payload) : prose(settings, id))
    return payload
  }
}

/** The embedder `mem meaning on` names: the flags', else the one set before (so on after off keeps it). */
function choiceOf(on: boolean, flags: {endpoint?: string; model?: string}, before: EmbedderChoice): EmbedderChoice {
  if (flags.endpoint === undefined && flags.model === undefined) return before
  if (!on) throw new MemError('invalid_input', '--endpoint and --model go with "mem meaning on"')
  if (flags.endpoint === undefined)
    throw new MemError('invalid_input', '--model names the model of an --endpoint: give both')
  if (flags.model === undefined || flags.model.trim() === '')
    throw new MemError('invalid_input', '--endpoint needs --model, the model it embeds with (such as nomic-embed-text)')
  return {backend: 'endpoint', url: checkedEndpoint(flags.endpoint), model: flags.model.trim()}
}

/** An http(s) URL with no user or password in it: a key goes in MEM_EMBED_KEY, never in the settings file. */
function checkedEndpoint(text: string): string {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new MemError(
      'invalid_input',
      `--endpoint: ${JSON.stringify(text)} is not a URL; give the API's base, such as http://localhost:11434/v1`,
    )
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new MemError('invalid_input', `--endpoint must be an http:// or https:// URL, not ${url.protocol}`)
  if (url.username !== '' || url.password !== '')
    throw new MemError(
      'invalid_input',
      '--endpoint must not hold a user or password: give the key in MEM_EMBED_KEY or a 0600 file named by MEM_EMBED_KEY_FILE',
    )
  return url.href
}

function prose(settings: MeaningSettings, id: string): string {
  const state = settings.on ? 'on' : 'off'
  const why =
    settings.from === 'env'
      ? `MEM_MEANING=${state} for this process`
      : settings.from === 'home'
        ? `set with "mem meaning ${state}"`
        : 'the default'
  const embedder =
    settings.embedder.backend === 'local'
      ? `the model shipped with mem, run in process (${id})`
      : `the endpoint ${settings.embedder.url}, model ${settings.embedder.model}`
  return [
    `Meaning is ${state} (${why}).`,
    `Vectors ${settings.on ? 'come' : 'would come'} from ${embedder}.`,
    ...(settings.problem === undefined
      ? []
      : [`The settings could not be used: ${settings.problem}; "mem meaning on" or "off" writes them anew.`]),
  ].join('\n')
}
