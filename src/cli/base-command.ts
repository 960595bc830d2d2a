import {Command, Errors} from '@oclif/core'
import type * as v from 'valibot'

import {MemError} from '../errors.js'
import {runOperation, type Operation, type OperationContext} from '../ops/index.js'
import {agentFlag as agentFlagSpec, jsonFlag, type CommandSpec, type FlagSpecs, type FlagValues} from './flag-spec.js'
import {openContext} from './home.js'
import {oclifFlags, wordsOf} from './oclif-flags.js'
import {printLine, printResult, printText, reportFailure} from './output.js'

export const agentFlag = oclifFlags(agentFlagSpec)

/**
 * What every mem command shares: the --json switch, the store, and the single mapping from
 * errors to stderr text, `{"error": …}` on stdout under --json, and exit codes (src/cli/output.ts,
 * which the fast path in src/fast.ts uses too).
 */
export abstract class MemCommand extends Command {
  static override baseFlags = oclifFlags(jsonFlag)

  protected get jsonMode(): boolean {
    return this.argv.includes('--json')
  }

  protected context(agent?: string, longLived = false): OperationContext {
    return openContext(agent, longLived)
  }

  /** Runs an operation and prints its prose, or its payload under --json. */
  protected async runOp<I extends v.GenericSchema, O extends v.GenericSchema>(op: Operation<I, O>, input: Record<string, unknown>, agent?: string): Promise<v.InferOutput<O>> {
    const payload = await runOperation(op, this.context(agent), input)
    printResult(op, payload, this.jsonMode)
    return payload
  }

  /** Runs a command that is one operation call (src/cli/specs): its words, in the order given, and its flags become the input. */
  protected async runSpec<S extends FlagSpecs & typeof agentFlagSpec>(spec: CommandSpec<S>): Promise<unknown> {
    const {raw, flags} = await this.parse()
    const values = flags as FlagValues<S>
    return this.runOp(spec.operation, await spec.input(wordsOf(raw), values), values.agent as string | undefined)
  }

  /** JSON under --json, exactly; anything else is text of mem's own, inert at a terminal. */
  protected print(text: string): void {
    if (this.jsonMode) printLine(text)
    else printText(text)
  }

  override async catch(error: Error & {exitCode?: number}): Promise<never> {
    if (error instanceof Errors.ExitError) throw error
    const failure = isUsageError(error) ? new MemError('invalid_input', error.message) : error
    return this.exit(reportFailure(failure, this.jsonMode))
  }
}

/** oclif's own parse failures: unknown flags, missing arguments, bad flag values. */
function isUsageError(error: Error): boolean {
  return error instanceof Errors.CLIError && 'parse' in error
}
