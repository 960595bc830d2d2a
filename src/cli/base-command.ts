import {Command, Errors, Flags} from '@oclif/core'

import {MemError, asMemError, errorJson, exitCodeOf} from '../errors.js'
import type * as v from 'valibot'

import {runOperation, type Operation, type OperationContext} from '../ops/index.js'
import {openContext} from './home.js'
import {renderers} from './render.js'
import {wantsStyle} from './terminal-style.js'

export const agentFlag = {
  agent: Flags.string({char: 'a', description: 'Agent whose memory to use [default: $MEM_AGENT, else "default"].', helpValue: 'ID'}),
}

/**
 * What every mem command shares: the --json switch, the store, and the single mapping from
 * errors to stderr text, `{"error": …}` on stdout under --json, and exit codes.
 */
export abstract class MemCommand extends Command {
  static override baseFlags = {
    json: Flags.boolean({description: 'Print the result as JSON: the same payload an MCP client gets as structuredContent.', helpGroup: 'GLOBAL'}),
  }

  protected get jsonMode(): boolean {
    return this.argv.includes('--json')
  }

  protected context(agent?: string, longLived = false): OperationContext {
    return openContext(this.config.configDir, agent, longLived)
  }

  /** Runs an operation and prints its prose, or its payload under --json. */
  protected async runOp<I extends v.GenericSchema, O extends v.GenericSchema>(op: Operation<I, O>, input: Record<string, unknown>, agent?: string): Promise<v.InferOutput<O>> {
    const payload = await runOperation(op, this.context(agent), input)
    this.print(this.jsonMode ? JSON.stringify(payload) : this.human(op, payload))
    return payload
  }

  /** The prose, byte for byte, unless a person is reading a terminal: then its coloured twin. */
  protected human<I extends v.GenericSchema, O extends v.GenericSchema>(op: Operation<I, O>, payload: v.InferOutput<O>): string {
    const render = renderers[op.tool]
    return render && wantsStyle(process.stdout, process.env) ? render(payload as never, new Date()) : op.prose(payload)
  }

  protected print(text: string): void {
    process.stdout.write(`${text}\n`)
  }

  override async catch(error: Error & {exitCode?: number}): Promise<never> {
    if (error instanceof Errors.ExitError) throw error
    const memError = isUsageError(error) ? new MemError('invalid_input', error.message) : asMemError(error)
    process.stderr.write(`Error: ${memError.message}\n`)
    if (this.jsonMode) this.print(JSON.stringify(errorJson(memError)))
    return this.exit(exitCodeOf(memError))
  }
}

/** oclif's own parse failures: unknown flags, missing arguments, bad flag values. */
function isUsageError(error: Error): boolean {
  return error instanceof Errors.CLIError && 'parse' in error
}
