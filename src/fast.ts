/**
 * The fast path for the everyday commands: `mem search`, `mem add`, `mem list` and `mem resume`
 * without oclif. Loading @oclif/core and its plugins costs more than a search itself
 * (docs/performance.md), so bin/run.js tries this module first. It handles an invocation only
 * when it understands all of it (src/cli/fast-argv.ts) and otherwise returns false, leaving the
 * full oclif run to answer, help and errors included. What it runs is the commands' own spec, context and output code.
 *
 * Nothing here, or imported from here, may import @oclif/core (scripts/build.mjs checks). It is
 * built into one file of its own, without PostgreSQL: a MEM_STORE invocation goes through oclif.
 */
import {parseFastArgv} from './cli/fast-argv.js'
import {jsonFlag, type CommandSpec} from './cli/flag-spec.js'

const specs: Record<string, () => Promise<CommandSpec>> = {
  search: async () => (await import('./cli/specs/search.js')).searchSpec as CommandSpec,
  add: async () => (await import('./cli/specs/add.js')).addSpec as CommandSpec,
  list: async () => (await import('./cli/specs/list.js')).listSpec as CommandSpec,
  resume: async () => (await import('./cli/specs/resume.js')).resumeSpec as CommandSpec,
}

/** Runs `argv` (without node and the script) if it is a fast command it fully understands; false means "use oclif". */
export async function runFast(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  // PostgreSQL's driver is not in the fast path's file (scripts/build.mjs): oclif opens it.
  if (env.MEM_NO_FAST_PATH || env.MEM_STORE?.trim()) return false
  const [id, ...args] = argv
  const load = id === undefined ? undefined : Object.hasOwn(specs, id) ? specs[id] : undefined
  if (!load) return false
  // Meaning's embedders and vectors are not in this file (scripts/build.mjs): oclif serves a
  // command when meaning is on, or when MEM_MEANING says something it should refuse.
  if (await meaningMayBeOn(env)) return false
  // Loaded together, and only for a fast command: `mem --version` and the rest pay for none of it.
  const [
    spec,
    {openContext},
    {printOutcome, reportFailure},
    {fieldWordsOf},
    {runOperation},
    {hintUnknownAgent, namedAgent},
  ] = await Promise.all([
    load(),
    import('./cli/home.js'),
    import('./cli/output.js'),
    import('./cli/cli-words.js'),
    import('./ops/operation.js'),
    import('./cli/unknown-agent.js'),
  ])
  const parsed = parseFastArgv({...jsonFlag, ...spec.flags}, args, spec.words)
  if (!parsed) return false
  const {words, flags} = parsed
  const json = flags.json === true
  // As oclif's Command does: a reader that closes the pipe early (`| head`) is not an error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error
  })
  let ctx: ReturnType<typeof openContext> | undefined
  try {
    ctx = openContext(flags.agent)
    const input = await spec.input(words, flags)
    await hintUnknownAgent(spec.operation, ctx, namedAgent(input, flags.agent))
    const payload = await runOperation(spec.operation, ctx, input)
    process.exitCode = await printOutcome(spec.operation, payload, json)
  } catch (error) {
    process.exitCode = await reportFailure(error, json, fieldWordsOf(spec.flags, spec.wordsFill))
  } finally {
    await ctx?.store.close().catch(() => {})
  }
  return true
}

async function meaningMayBeOn(env: NodeJS.ProcessEnv): Promise<boolean> {
  const [{resolveHome}, {readMeaningSettings}] = await Promise.all([
    import('./cli/home.js'),
    import('./meaning/settings.js'),
  ])
  try {
    return readMeaningSettings(resolveHome(env), env).on
  } catch {
    return true
  }
}
