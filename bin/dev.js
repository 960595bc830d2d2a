#!/usr/bin/env -S node --import tsx
// The sources through tsx, for development. CommonJS like run.js (bin/package.json).
'use strict'
const {join} = require('node:path')

require('@oclif/core').execute({development: true, dir: join(__dirname, '..')})
