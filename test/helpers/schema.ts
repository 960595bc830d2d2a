import {Ajv} from 'ajv'

/** Validates a value against a JSON Schema exactly as advertised, returning ajv's errors. */
export function validateAgainst(schema: object, value: unknown): string | undefined {
  const ajv = new Ajv({strict: false, allErrors: true})
  const check = ajv.compile(schema)
  return check(value) ? undefined : ajv.errorsText(check.errors)
}
