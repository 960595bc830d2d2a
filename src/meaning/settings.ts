import {mkdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'

import * as v from 'valibot'

import {MemError} from '../errors.js'
import {DIR_MODE, writeFileDurably} from '../store/file/durable-file.js'

/** Which embedder makes the vectors: the model shipped with mem, run in process, or an OpenAI-compatible endpoint. */
export type EmbedderChoice = {backend: 'local'} | {backend: 'endpoint'; url: string; model: string}

/** Whether searches rank by meaning too, and with what (docs/search.md, "Meaning (optional)"). */
export interface MeaningSettings {
  on: boolean
  /** What decided `on`: MEM_MEANING, the home's settings file, or the default (off). */
  from: 'env' | 'home' | 'default'
  embedder: EmbedderChoice
  /** Set when the settings file could not be read: meaning stays off, and `mem meaning` says why. */
  problem?: string
}

const FORMAT = 'mem.meaning'
const FILE_NAME = 'meaning.json'

const SettingsFile = v.object({
  format: v.literal(FORMAT),
  version: v.literal(1),
  meaning: v.picklist(['on', 'off']),
  embedder: v.variant('backend', [
    v.object({backend: v.literal('local')}),
    v.object({backend: v.literal('endpoint'), url: v.string(), model: v.string()}),
  ]),
})

export function meaningSettingsPath(home: string): string {
  return join(home, FILE_NAME)
}

/**
 * The settings in force for this process: MEM_MEANING (on or off) over the home's file over
 * off. A file that does not read leaves meaning off rather than failing a search: ranking by
 * words is always there to fall back on.
 */
export function readMeaningSettings(home: string, env: NodeJS.ProcessEnv = process.env): MeaningSettings {
  const saved = readFile(home)
  const forced = envSwitch(env)
  const embedder = saved.settings?.embedder ?? {backend: 'local'}
  if (forced !== undefined) return {on: forced, from: 'env', embedder, ...problemOf(saved)}
  if (saved.settings) return {on: saved.settings.meaning === 'on', from: 'home', embedder}
  return {on: false, from: 'default', embedder, ...problemOf(saved)}
}

/** Turns meaning on or off for every process of this home, and names its embedder. */
export function writeMeaningSettings(home: string, on: boolean, embedder: EmbedderChoice): void {
  const file: v.InferOutput<typeof SettingsFile> = {format: FORMAT, version: 1, meaning: on ? 'on' : 'off', embedder}
  mkdirSync(home, {recursive: true, mode: DIR_MODE})
  writeFileDurably(meaningSettingsPath(home), `${JSON.stringify(file, null, 2)}\n`, {durable: true, backup: false})
}

function envSwitch(env: NodeJS.ProcessEnv): boolean | undefined {
  const value = env.MEM_MEANING?.trim().toLowerCase()
  if (value === undefined || value === '') return undefined
  if (value === 'on') return true
  if (value === 'off') return false
  throw new MemError(
    'invalid_input',
    `MEM_MEANING=${JSON.stringify(env.MEM_MEANING)}: it takes "on" or "off"; unset it to follow "mem meaning"`,
  )
}

function readFile(home: string): {settings?: v.InferOutput<typeof SettingsFile>; problem?: string} {
  const path = meaningSettingsPath(home)
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {}
    return {problem: `${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`}
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return {problem: `${path} is not valid JSON`}
  }
  const result = v.safeParse(SettingsFile, parsed)
  if (!result.success) return {problem: `${path} is not a mem meaning settings file (${FORMAT}, version 1)`}
  return {settings: result.output}
}

function problemOf(saved: {problem?: string}): {problem?: string} {
  return saved.problem === undefined ? {} : {problem: saved.problem}
}
