/** How an export or import tells its caller how far it got; the CLI draws it, tests may count it. */
export type OnProgress = (phase: string, done: number, total: number) => void
