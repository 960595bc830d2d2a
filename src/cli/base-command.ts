import {Command, Errors, type Interfaces} from '@oclif/core'
import type * as v from 'valibot'

import type {TransferContext} from '../transfer/progress.js'
import {runOperation, type Operation, type OperationContext} from '../ops/index.js'
import {agentFlag as agentFlagSpec, jsonFlag, type CommandSpec, type FlagSpecs, type FlagValues} from './flag-spec.js'
import {fieldWordsOf, type FieldWords} from './cli-words.js'
import {openContext} from './home.js'
import {oclifFlags, wordsOf} from './oclif-flags.js'
import {hintUnknownAgent, namedAgent} from './unknown-agent.js'
import {printLine, printOutcome, printText, reportFailure} from './output.js'
import {usageError} from './usage-error.js'

export const agentFlag = oclifFlags(agentFlagSpec)

// oclif's own bounds for parse's type parameters, which it does not export.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type FlagOutput = {[name: string]: any}
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type ArgOutput = {[name: string]: any}

/**
 * What every mem command shares: the --json switch, the store, and the single mapping from
 * errors to stderr text, `{"error": …}` on stdout under --json, and exit codes (src/cli/output.ts,
 * which the fast path in src/fast.ts uses too).
 */
export abstract class MemCommand extends Command {
  static override baseFlags = oclifFlags(jsonFlag)

  /**
   * The input fields a command fills other than from a flag of the same name (an argument, or a
   * flag that fills a field of another name), and the words its errors use for them.
   */
  static fieldWords: FieldWords = {}

  /** How this run names input fields in errors; a spec command's come from its spec. */
  private words?: FieldWords

  /** --json as parsed; undefined until the flags parse (then a failure looks at argv, up to any `--`). */
  private parsedJson?: boolean

  protected get jsonMode(): boolean {
    if (this.parsedJson !== undefined) return this.parsedJson
    const end = this.argv.indexOf('--')
    return (end === -1 ? this.argv : this.argv.slice(0, end)).includes('--json')
  }

  /** oclif's parse, with every way the command line can be wrong reported as invalid input (exit 2). */
  protected override async parse<F extends FlagOutput, B extends FlagOutput, A extends ArgOutput>(
    options?: Interfaces.Input<F, B, A>,
    argv?: string[],
  ): Promise<Interfaces.ParserOutput<F, B, A>> {
    try {
      const parsed = await super.parse(options, argv)
      this.parsedJson = (parsed.flags as {json?: boolean}).json === true
      return parsed
    } catch (error) {
      if (error instanceof Errors.ExitError || !(error instanceof Error)) throw error
      throw usageError(error, this.id)
    }
  }

  /** The stores this run opened, closed when it ends (src/store/store.ts, close). */
  private readonly opened: OperationContext[] = []

  protected context(agent?: string, longLived = false): OperationContext {
    const ctx = openContext(agent, longLived)
    this.opened.push(ctx)
    return ctx
  }

  /** Runs after every command, failed or not: lets go of the database's connections, if any. */
  protected override async finally(error: Error | undefined): Promise<unknown> {
    // A store that cannot close cleanly (the database went away) has nothing left to save.
    await Promise.all(this.opened.splice(0).map((ctx) => ctx.store.close().catch(() => {})))
    return super.finally(error)
  }

  /** Runs an operation on the store and prints its prose, or its payload under --json. */
  protected async runOp<I extends v.GenericSchema, O extends v.GenericSchema>(
    op: Operation<I, O>,
    input: Record<string, unknown>,
    agent?: string,
  ): Promise<v.InferOutput<O>> {
    const ctx = this.context(agent)
    await hintUnknownAgent(op, ctx, namedAgent(input, agent))
    return this.runIn(op, ctx, input)
  }

  /**
   * Runs an operation in the context it works on, then does what every command does with the
   * result (src/cli/output.ts): prose or --json payload, agents left out, exit code. A failure
   * is thrown on to `catch`, the one place errors become stderr text and exit codes.
   */
  protected async runIn<I extends v.GenericSchema, O extends v.GenericSchema, C>(
    op: Operation<I, O, C>,
    ctx: C,
    input: Record<string, unknown>,
    beforePrint?: () => void,
  ): Promise<v.InferOutput<O>> {
    const payload = await runOperation(op, ctx, input)
    beforePrint?.()
    const code = await printOutcome(op, payload, this.jsonMode)
    if (code !== 0) this.exit(code)
    return payload
  }

  /** Runs a command that is one operation call (src/cli/specs): its words, in the order given, and its flags become the input. */
  protected async runSpec<S extends FlagSpecs & typeof agentFlagSpec>(spec: CommandSpec<S>): Promise<unknown> {
    this.words = fieldWordsOf(spec.flags, spec.wordsFill)
    const {raw, flags} = await this.parse()
    const values = flags as FlagValues<S>
    return this.runOp(spec.operation, await spec.input(wordsOf(raw), values), values.agent as string | undefined)
  }

  /**
   * Runs an operation that tells how far it got: a progress bar on stderr for a person at a
   * terminal (never under --json, nor when `bar` is false), gone before the result is printed.
   */
  protected async runWithProgress<I extends v.GenericSchema, O extends v.GenericSchema, C extends TransferContext>(
    op: Operation<I, O, C>,
    ctx: C,
    input: Record<string, unknown>,
    bar = true,
  ): Promise<v.InferOutput<O>> {
    const {progressBar} = await import('../transfer/progress-bar.js')
    const progress = progressBar(bar && !this.jsonMode)
    try {
      return await this.runIn(op, {...ctx, onProgress: progress.onProgress}, input, progress.stop)
    } finally {
      progress.stop()
    }
  }

  /** JSON under --json, exactly; anything else is text of mem's own, inert at a terminal. */
  protected print(text: string): void {
    if (this.jsonMode) printLine(text)
    else printText(text)
  }

  /** Each flag fills the field of its name, `--agent` fills agent_id, and the command adds the rest. */
  private flagWords(): FieldWords {
    const command = this.constructor as typeof MemCommand
    return fieldWordsOf(Object.keys(command.flags ?? {}), {...fieldWordsOf(agentFlagSpec), ...command.fieldWords})
  }

  override async catch(error: Error & {exitCode?: number}): Promise<never> {
    if (error instanceof Errors.ExitError) throw error
    return this.exit(await reportFailure(error, this.jsonMode, this.words ?? this.flagWords()))
  }
}
