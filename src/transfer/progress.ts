import type {OperationContext} from '../ops/operation.js'

/** How an export or import tells its caller how far it got; the CLI draws it, tests may count it. */
export type OnProgress = (phase: string, done: number, total: number) => void

/** What an import or export works on: the store, and whom to tell how far it got (the CLI's progress bar). */
export type TransferContext = OperationContext & {onProgress?: OnProgress}
