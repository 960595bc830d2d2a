import {toJsonSchema} from '@valibot/to-json-schema'
import type * as v from 'valibot'

import {JsonObject} from '../ops/fields.js'
import {operations, type AnyOperation} from '../ops/index.js'

export interface ToolDefinition {
  name: string
  title: string
  description: string
  inputSchema: Record<string, unknown> & {type: 'object'}
  outputSchema: Record<string, unknown> & {type: 'object'}
  annotations: AnyOperation['annotations'] & {title: string}
}

/**
 * JSON Schema for an operation's input or output. Only `check` actions are left out: they
 * are bounds JSON Schema cannot state (nesting depth, total size), still enforced by the
 * operation. Any other construct that cannot be advertised makes this throw, so a schema
 * the wire contract cannot carry fails the tests instead of reaching a client.
 */
export function jsonSchemaOf(schema: v.GenericSchema): Record<string, unknown> & {type: 'object'} {
  const converted = toJsonSchema(schema, {
    errorMode: 'throw',
    ignoreActions: ['check'],
    overrideSchema: ({valibotSchema}) => (valibotSchema === JsonObject ? {type: 'object'} : undefined),
  }) as Record<string, unknown>
  // MCP requires an object at the top; a union of object shapes is declared as one.
  return {...converted, type: 'object'}
}

export function toolDefinition(op: AnyOperation): ToolDefinition {
  return {
    name: op.tool,
    title: op.title,
    description: op.description,
    inputSchema: jsonSchemaOf(op.input),
    outputSchema: jsonSchemaOf(op.output),
    annotations: {title: op.title, ...op.annotations},
  }
}

export function toolDefinitions(): ToolDefinition[] {
  return operations.map(toolDefinition)
}

export function findOperation(name: string): AnyOperation | undefined {
  return operations.find((op) => op.tool === name)
}
