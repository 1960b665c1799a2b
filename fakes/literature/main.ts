// Runs the fake literature sources alone (default 127.0.0.1:8192) with the illustrative corpus; npm start starts it in
// process and connects the literature connector to it.
import { startFakeLiterature } from './server'
import { exitOnStartFailure } from '../../core/config'

const port = Number(process.env.FAKE_LITERATURE_PORT ?? 8192)
// A port in use: one sentence (held by whom, FAKE_LITERATURE_PORT), exit 1.
const fake = await startFakeLiterature({ port, host: process.env.FAKE_LITERATURE_HOST ?? '127.0.0.1' }).catch((e) => exitOnStartFailure(e, 'FAKE_LITERATURE_PORT'))
console.log(JSON.stringify({ msg: 'fake literature sources listening (illustrative content)', url: fake.url, control: `${fake.url}/_control/state` }))
const stop = async () => { await fake.close(); process.exit(0) }
process.once('SIGINT', stop)
process.once('SIGTERM', stop)
