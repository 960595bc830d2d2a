import {memoryAdd} from './add.js'
import {agentList} from './agents.js'
import {checkpointList} from './checkpoints.js'
import {factHistory} from './history.js'
import {factList} from './list.js'
import type {AnyOperation} from './operation.js'
import {memoryReflect} from './reflect.js'
import {checkpointResume} from './resume.js'
import {checkpointSave} from './save.js'
import {memorySearch} from './search.js'

export {checkpointResume, checkpointSave, memoryAdd, memoryReflect, memorySearch}
export {agentList, checkpointList, factHistory, factList}
export {runOperation, type AnyOperation, type Operation, type OperationContext} from './operation.js'

/** The inventory every surface is built from, in the order tools/list shows them. */
export const operations: AnyOperation[] = [memorySearch, memoryAdd, checkpointSave, checkpointResume, memoryReflect]

/** Operations only the CLI offers, for people browsing their memory; never advertised over MCP. */
export const cliOperations: AnyOperation[] = [factList, agentList, factHistory, checkpointList]
