import {toJsonSchema, type JsonSchema} from '@valibot/to-json-schema'
import type * as v from 'valibot'

import {JsonObject, ResultJsonObject} from '../ops/fields.js'
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
/** Any JSON value, said with a keyword: strict converters reject an empty schema `{}`. */
const ANY_JSON: JsonSchema = {type: ['object', 'array', 'string', 'number', 'boolean', 'null']}

/**
 * A free-form object, said explicitly: some converters (mcp-use's) read `{"type": "object"}`
 * without `additionalProperties` as an object that must be empty.
 */
const FREE_OBJECT: JsonSchema = {type: 'object', additionalProperties: true}

/** A JSON object in a result, said as results have always said it: any JSON under any key. */
function jsonRecord(): JsonSchema {
  return {type: 'object', propertyNames: {type: 'string'}, additionalProperties: {...ANY_JSON}}
}

export function jsonSchemaOf(schema: v.GenericSchema): Record<string, unknown> & {type: 'object'} {
  const converted = toJsonSchema(schema, {
    errorMode: 'throw',
    ignoreActions: ['check'],
    overrideSchema: ({valibotSchema, jsonSchema}) => {
      if (valibotSchema === JsonObject) return {...FREE_OBJECT}
      if (valibotSchema === ResultJsonObject) return jsonRecord()
      if (valibotSchema.type === 'unknown')
        return {...ANY_JSON, ...(jsonSchema.description === undefined ? {} : {description: jsonSchema.description})}
      if (valibotSchema.type === 'record' && isEmpty(jsonSchema.additionalProperties))
        return {...jsonSchema, additionalProperties: true}
      return undefined
    },
  }) as Record<string, unknown>
  // MCP requires an object at the top; a union of object shapes is declared as one.
  return {...converted, type: 'object'}
}

function isEmpty(value: unknown): boolean {
  return typeof value === 'object' && value !== null && Object.keys(value).length === 0
}

export function toolDefinition(op: AnyOperation): ToolDefinition {
  return {
    name: op.tool,
    title: op.title,
    description: op.description,
    // Optional inputs are advertised with their plain type, never a union with null: some
    // clients (the MCP Inspector's CLI) convert an argument only for a single plain type. An
    // explicit null is still read as left out (src/ops/operation.ts), so the models that send
    // one, and converters that make every key required and nullable (OpenAI's strict mode),
    // keep working.
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
