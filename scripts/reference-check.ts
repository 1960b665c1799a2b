// npm run check:references: fails when a skill whose status is preview or available references a to_verify entry
// (evaluated as if R4_GATE_PASSED were true, i.e. what the release act would publish).
import { listSkills, referenceCheck } from '../domain/skills'

const report = referenceCheck(listSkills({ r4GatePassed: true }))
for (const p of report.problems) console.error(`problem: ${typeof p === 'string' ? p : JSON.stringify(p)}`)
for (const a of report.advisories) console.log(`advisory: ${typeof a === 'string' ? a : JSON.stringify(a)}`)
console.log(report.ok ? 'reference check: ok' : 'reference check: FAILED')
process.exit(report.ok ? 0 : 1)
