import fc from 'fast-check'

import {testSeed} from './seed.js'

// Property tests draw their cases from fast-check's generator. A failure prints its seed
// ("seed: 12345"); MEM_TEST_SEED=12345 makes every property run draw the same cases again, as it
// makes the crash and PostgreSQL kill tests repeat their choices (test/helpers/seed.ts).
if (process.env.MEM_TEST_SEED) fc.configureGlobal({...fc.readConfigureGlobal(), seed: testSeed()})
