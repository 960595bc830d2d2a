import {EmbedderError, type Embedder} from './embedder.js'
import {EndpointEmbedder, embedderKey, endpointId} from './endpoint-embedder.js'
import {LocalEmbedder} from './local-embedder.js'
import {Meaning} from './meaning.js'
import {readMeaningSettings, type EmbedderChoice} from './settings.js'

/**
 * Meaning for a process of this home, when it is on (MEM_MEANING, else `mem meaning`): the
 * embedder named, which loads nothing until a search or the upkeep first asks it. Undefined
 * when meaning is off, and every search ranks by words alone, as before meaning existed.
 */
export function openMeaning(
  home: string,
  longLived: boolean,
  env: NodeJS.ProcessEnv = process.env,
): Meaning | undefined {
  const settings = readMeaningSettings(home, env)
  if (!settings.on) return undefined
  const meaning = new Meaning(embedderFor(settings.embedder, env), {longLived})
  // A server starts loading the model at once, so that its searches rank by meaning soon after,
  // without the first one waiting for it.
  if (longLived) meaning.warmUp()
  return meaning
}

/** The embedder a choice names. A key file that cannot be used fails its calls, never the command: words still rank. */
export function embedderFor(choice: EmbedderChoice, env: NodeJS.ProcessEnv = process.env): Embedder {
  if (choice.backend === 'local') return new LocalEmbedder()
  const id = endpointId(choice.model)
  let key: string | undefined
  try {
    key = embedderKey(env)
  } catch (error) {
    if (!(error instanceof EmbedderError)) throw error
    return {id, embed: () => Promise.reject(error), close: async () => {}}
  }
  return new EndpointEmbedder({url: choice.url, model: choice.model, key})
}
