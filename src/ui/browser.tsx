import {Box, Text, useApp, useInput, useStdout} from 'ink'
import {useEffect, useReducer} from 'react'

import {inert} from '../cli/inert-text.js'
import type {Backend} from './backend.js'
import {AgentList} from './components/agent-list.js'
import {CheckpointList} from './components/checkpoint-list.js'
import {CheckpointView} from './components/checkpoint-view.js'
import {ConfirmCreate, ConfirmDelete} from './components/confirm.js'
import {Editor} from './components/editor.js'
import {FactDetail} from './components/fact-detail.js'
import {FactList} from './components/fact-list.js'
import {Line} from './components/line.js'
import {SearchBar} from './components/search-bar.js'
import {noticeLines, StatusBar} from './components/status-bar.js'
import {withKeys} from './keys.js'
import {bodyRows, DEFAULT_VIEW, screenRows, type View} from './layout.js'
import {initialState, isSearch, pageOf, reducer, type Action, type State} from './state.js'
import {factsTitle} from './titles.js'

export interface BrowserProps {
  backend: Backend
  agent: string
  /** The agent as named on the command line (--agent, MEM_AGENT): if it stores nothing, the browser says which agents do. */
  named?: string
  /** How often to look for changes other processes wrote, in ms. */
  pollMs?: number
  /** The clock for relative dates; tests fix it. */
  now?: () => Date
}

const reduce = withKeys(reducer)

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/** Runs `load` whenever `deps` change and dispatches its result, unless a newer load has started. */
function useLoad(dispatch: (a: Action) => void, load: (() => Promise<Action>) | undefined, deps: unknown[]): void {
  useEffect(() => {
    if (!load) return
    let current = true
    load().then(
      (action) => current && dispatch(action),
      (error: unknown) => current && dispatch({type: 'failed', message: message(error)}),
    )
    return () => {
      current = false
    }
  }, deps)
}

/** How the browser ends when left with Ctrl-C; runBrowser turns it into exit status 130. */
export class Interrupted extends Error {
  constructor() {
    super('interrupted')
    this.name = 'Interrupted'
  }
}

function viewOf(stdout: NodeJS.WriteStream): View {
  return {columns: stdout.columns || DEFAULT_VIEW.columns, rows: stdout.rows || DEFAULT_VIEW.rows}
}

export function Browser({backend, agent, named, pollMs = 1000, now = () => new Date()}: BrowserProps) {
  const {stdout} = useStdout()
  const [state, dispatch] = useReducer(reduce, undefined, () => initialState(agent, viewOf(stdout), named))
  const {exit} = useApp()
  const {screen, view} = state

  useInput((input, key) => dispatch({type: 'key', input, key}))

  // A terminal resized redraws at its new size: every row is fitted to the width it now has.
  useEffect(() => {
    const resized = (): void => dispatch({type: 'resized', view: viewOf(stdout)})
    stdout.on('resize', resized)
    return () => {
      stdout.off('resize', resized)
    }
  }, [stdout])

  useEffect(() => {
    if (state.quit) exit(state.interrupted ? new Interrupted() : undefined)
  }, [state.quit, state.interrupted, exit])

  useEffect(() => {
    if (pollMs <= 0) return
    const timer = setInterval(() => dispatch({type: 'refresh'}), pollMs)
    return () => clearInterval(timer)
  }, [pollMs])

  const {agent: current, query, generation} = state
  const {offset, limit} = pageOf(state)
  useLoad(
    dispatch,
    async () => ({
      type: 'facts-loaded',
      agent: current,
      query,
      ...(await backend.facts(current, query, {offset, limit})),
    }),
    [backend, current, query, generation, offset, limit],
  )
  // A listing counts the agent's facts as it loads; while searching they are counted on each reload, not each key.
  const searching = isSearch(query)
  useLoad(
    dispatch,
    searching
      ? async () => ({type: 'live-counted', agent: current, live: await backend.liveFacts(current)})
      : undefined,
    [backend, current, searching, generation],
  )
  const factId = screen.name === 'fact' ? screen.id : undefined
  useLoad(
    dispatch,
    factId ? async () => ({type: 'history-loaded', history: await backend.history(current, factId)}) : undefined,
    [backend, current, factId, generation],
  )
  const agentsShown = screen.name === 'agents'
  useLoad(dispatch, agentsShown ? async () => ({type: 'agents-loaded', agents: await backend.agents()}) : undefined, [
    backend,
    agentsShown,
    generation,
  ])
  const checkpointsShown = screen.name === 'checkpoints'
  useLoad(
    dispatch,
    checkpointsShown
      ? async () => ({type: 'checkpoints-loaded', agent: current, checkpoints: await backend.checkpoints(current)})
      : undefined,
    [backend, current, checkpointsShown, generation],
  )
  const checkpointId = screen.name === 'checkpoint' ? screen.id : undefined
  useLoad(
    dispatch,
    checkpointId
      ? async () => ({type: 'checkpoint-loaded', checkpoint: await backend.checkpoint(current, checkpointId)})
      : undefined,
    [backend, current, checkpointId],
  )

  const pending = state.pending
  useEffect(() => {
    if (!pending) return
    const write: Promise<{notice: string; factId?: string}> =
      pending.kind === 'add'
        ? backend.add(current, pending.content, pending.tags)
        : (pending.kind === 'update'
            ? backend.update(current, pending.id, pending.content, pending.tags)
            : backend.remove(current, pending.id)
          ).then((notice) => ({notice}))
    // A write is never abandoned half-way: its outcome is reported even if the screen moved on.
    write.then(
      ({notice, factId}) => dispatch({type: 'written', notice, ...(factId === undefined ? {} : {added: factId})}),
      (error: unknown) => dispatch({type: 'failed', message: message(error)}),
    )
  }, [backend, current, pending])

  const time = now()
  const notice = noticeLines(state.error ?? state.notice, view.columns)
  const height = bodyRows(view, notice.length)
  return (
    <Box flexDirection="column" height={screenRows(view)} width={view.columns}>
      <Line
        spans={[
          {text: 'mem', bold: true, color: 'cyan'},
          {text: ` · agent ${inert(state.agent)} · ${title(state)}`, dim: true},
        ]}
        width={view.columns}
      />
      {screen.name === 'facts' ? (
        <SearchBar query={{text: state.query, cursor: state.queryCursor}} typing={state.typing} width={view.columns} />
      ) : (
        <Text> </Text>
      )}
      <Box flexDirection="column" height={height} overflow="hidden">
        {body(state, height, time)}
      </Box>
      <Box flexGrow={1} />
      <StatusBar
        screen={screen.name}
        typing={state.typing && screen.name === 'facts'}
        notice={notice}
        error={state.error !== undefined}
        width={view.columns}
      />
    </Box>
  )
}

function title(state: State): string {
  switch (state.screen.name) {
    case 'facts':
      return factsTitle({...state, loaded: state.factsFor !== undefined})
    case 'fact':
      return 'fact'
    case 'edit':
      return state.screen.id === undefined ? 'new fact' : 'edit fact'
    case 'confirm-delete':
      return 'delete fact'
    case 'confirm-create':
      return 'new agent'
    case 'agents':
      return 'agents'
    case 'checkpoints':
      return 'checkpoints'
    case 'checkpoint':
      return 'checkpoint'
  }
}

function body(state: State, height: number, now: Date) {
  const {screen} = state
  const width = state.view.columns
  switch (screen.name) {
    case 'facts':
      return (
        <FactList
          facts={state.facts}
          offset={state.offset}
          count={state.count}
          selected={state.selected}
          query={state.query}
          height={height}
          width={width}
          now={now}
          loaded={state.factsFor !== undefined}
          capped={state.search?.capped ?? false}
          unknown={
            state.unknown !== undefined && state.agent === state.named
              ? {agent: state.agent, hint: state.unknown}
              : undefined
          }
        />
      )
    case 'fact':
      return (
        <FactDetail
          factId={screen.id}
          history={state.history}
          now={now}
          height={height}
          width={width}
          scroll={state.scroll}
        />
      )
    case 'edit':
      return (
        <Editor
          title={
            screen.id === undefined
              ? `New fact for agent ${inert(state.agent)}`
              : `Edit fact ${screen.id} (saves a new version)`
          }
          draft={screen.draft}
          busy={state.pending !== undefined}
          width={width}
          height={height}
        />
      )
    case 'confirm-delete':
      return (
        <ConfirmDelete
          content={
            state.facts.find((f) => f.id === screen.id)?.content ??
            state.history?.versions.find((f) => f.id === screen.id)?.content
          }
          busy={state.pending !== undefined}
          width={width}
          height={height}
        />
      )
    case 'confirm-create':
      return <ConfirmCreate agent={state.agent} width={width} height={height} />
    case 'agents':
      return (
        <AgentList
          agents={state.agents}
          selected={state.agentSelected}
          current={state.agent}
          height={height}
          width={width}
          now={now}
        />
      )
    case 'checkpoints':
      return (
        <CheckpointList
          checkpoints={state.checkpoints}
          selected={state.checkpointSelected}
          height={height}
          width={width}
          now={now}
        />
      )
    case 'checkpoint':
      return (
        <CheckpointView checkpoint={state.checkpoint} height={height} width={width} scroll={state.scroll} now={now} />
      )
  }
}
