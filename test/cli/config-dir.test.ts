import assert from 'node:assert/strict'
import {join} from 'node:path'

import {Config} from '@oclif/core'

import {configDir} from '../../src/cli/config-dir.js'
import {ROOT} from '../helpers/mem.js'

const KEYS = ['HOME', 'XDG_CONFIG_HOME', 'MEM_CONFIG_DIR'] as const

/** Runs `check` with these variables set (undefined: unset), then puts the environment back. */
async function withEnv(
  env: Partial<Record<(typeof KEYS)[number], string | undefined>>,
  check: () => Promise<void>,
): Promise<void> {
  const saved = Object.fromEntries(KEYS.map((k) => [k, process.env[k]]))
  try {
    for (const k of KEYS) {
      const value = k in env ? env[k] : saved[k]
      if (value === undefined) delete process.env[k]
      else process.env[k] = value
    }
    await check()
  } finally {
    for (const k of KEYS) {
      if (saved[k] === undefined) delete process.env[k]
      else process.env[k] = saved[k]
    }
  }
}

describe('the config dir without oclif', () => {
  const cases: Partial<Record<(typeof KEYS)[number], string | undefined>>[] = [
    {},
    {HOME: '/tmp/mem-home-a', XDG_CONFIG_HOME: undefined, MEM_CONFIG_DIR: undefined},
    {HOME: '/tmp/mem-home-a', XDG_CONFIG_HOME: '/tmp/mem-xdg', MEM_CONFIG_DIR: undefined},
    {HOME: '/tmp/mem-home-a', XDG_CONFIG_HOME: '', MEM_CONFIG_DIR: undefined},
    {HOME: '/tmp/mem-home-a', XDG_CONFIG_HOME: '/tmp/mem-xdg', MEM_CONFIG_DIR: '/tmp/mem-explicit'},
    {HOME: '/tmp/mem-home-a', XDG_CONFIG_HOME: undefined, MEM_CONFIG_DIR: ''},
    {HOME: '', XDG_CONFIG_HOME: undefined, MEM_CONFIG_DIR: undefined},
  ]

  for (const env of cases) {
    it(`equals oclif's config.configDir with ${JSON.stringify(env)}`, async () => {
      await withEnv(env, async () => {
        const config = await Config.load(ROOT)
        assert.equal(configDir(), config.configDir)
      })
    })
  }

  it("follows oclif's Windows rules: LOCALAPPDATA, then the profile folder", () => {
    const windows = {
      HOMEDRIVE: 'C:',
      HOMEPATH: '\\Users\\ada',
      USERPROFILE: 'D:\\ada',
      LOCALAPPDATA: 'C:\\Users\\ada\\AppData\\Local',
    }
    assert.equal(configDir(windows, 'win32'), join('C:\\Users\\ada\\AppData\\Local', 'mem'))
    assert.equal(
      configDir({...windows, LOCALAPPDATA: undefined}, 'win32'),
      join('C:', '\\Users\\ada', '.config', 'mem'),
    )
    assert.equal(configDir({USERPROFILE: 'D:\\ada'}, 'win32'), join('D:\\ada', '.config', 'mem'))
    // Off Windows those variables mean nothing.
    assert.equal(configDir({...windows, HOME: '/home/ada'}, 'linux'), join('/home/ada', '.config', 'mem'))
  })
})
