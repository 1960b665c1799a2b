// Skills in one program (/p/<slug>/skills): the first-in-human dose projection from NOAELs and the NCA extraction from a
// concentration table, each with its units typed beside its numbers. A unit the skill refuses (missing, not UCUM, the
// wrong kind) is shown beside that unit's field; the result reads its method line ('Method: <name> (<guidance>,
// retrieved <date>), version n', composed by the API) and 'How this was computed' with every intermediate value.
import { useEffect, useId, useState, type FormEvent, type ReactNode } from 'react'
import { useMutation, useQuery } from 'urql'
import { RoleHomeDocument, RunSkillDocument } from '../generated/graphql'
import { SKILLS } from '../copy'
import { describeError, typedErrorMessage } from '../api/errors'
import { Link } from '../router'
import { withReadableDates } from '../format'
import { NcaPlots, profilePoints } from '../components/nca-plot'
import { ProgramUnavailable } from '../components/program-unavailable'

const SPECIES: { key: string; label: string }[] = [
  { key: 'rat', label: 'Rat' }, { key: 'mouse', label: 'Mouse' }, { key: 'dog', label: 'Dog' },
  { key: 'monkey', label: 'Monkey' }, { key: 'rabbit', label: 'Rabbit' }, { key: 'mini_pig', label: 'Minipig' },
]
const NCA_ROUTES: { key: string; label: string }[] = [
  { key: 'oral', label: 'Oral' }, { key: 'subcutaneous', label: 'Subcutaneous' }, { key: 'intramuscular', label: 'Intramuscular' },
  { key: 'iv_bolus', label: 'Intravenous bolus' },
]

type Problems = { byField: Record<string, string>; form: string }

/**
 * A skill's refusal in the words of the form: the field named as the form labels it, never a path, a type name or
 * 'received null' ('Enter the dose of NOAEL 1 as a number.'). `labelOf` names a field path as the form does.
 */
export function inFormWords(field: string, message: string, labelOf: (field: string) => string | undefined): string {
  const label = labelOf(field)
  const text = message.replace(/^[\w.[\]]+:\s*/, '')
  if (label && /received (null|NaN|undefined)|expected number|Invalid input: expected (int|number)/i.test(text)) return `Enter the ${label} as a number.`
  if (label && /expected string, received (null|undefined)|Too small: expected string/i.test(text)) return `Enter the ${label}.`
  const atLeast = /Too small: expected array to have >=\s*(\d+) items/i.exec(text)
  if (atLeast && field === 'rows') return `Enter at least ${atLeast[1]} samples, one per line: the time, then the concentration.`
  if (atLeast && label) return `Give at least ${atLeast[1]}: ${label}.`
  if (label && /^Invalid (input|option)/i.test(text)) return `Check the ${label}: it is not one the skill accepts.`
  return text.replace(/\b[a-z0-9]+(?:_[a-z0-9]+)+\b/g, (k) => k.replace(/_/g, ' '))
}

/** Runs a skill and sorts its refusal: a field's error (its path inside the inputs) or one for the whole form. */
function useRunSkill(programId: string, labelOf: (field: string) => string | undefined) {
  const [state, run] = useMutation(RunSkillDocument)
  const [problems, setProblems] = useState<Problems>({ byField: {}, form: '' })
  const [result, setResult] = useState<any>(null)
  const submit = async (skillKey: string, inputs: Record<string, unknown>) => {
    setProblems({ byField: {}, form: '' })
    const res = await run({ programId, input: { skillKey, inputs } })
    if (res.error) return setProblems({ byField: {}, form: describeError(res.error) ?? '' })
    const out = res.data?.runSkill
    if (out?.__typename === 'MutationRunSkillSuccess') return setResult(out.skillResult)
    setResult(null)
    const byField: Record<string, string> = {}
    if (out?.__typename === 'InvalidInput') {
      for (const i of out.issues) byField[inputPath(i.field)] = inFormWords(inputPath(i.field), i.message ?? '', labelOf)
      return setProblems({ byField, form: out.issues.some((i) => !i.field) ? out.message : '' })
    }
    const field = out && 'field' in out ? inputPath(out.field ?? null) : ''
    if (field) return setProblems({ byField: { [field]: inFormWords(field, typedErrorMessage(out), labelOf) }, form: '' })
    setProblems({ byField: {}, form: typedErrorMessage(out) })
  }
  const refuse = (byField: Record<string, string>) => { setResult(null); setProblems({ byField, form: '' }) }
  return { busy: state.fetching, problems, result, submit, refuse }
}

/**
 * An error path as the form's fields name it ('noael[0].dose.unit'): the API's dotted path from the operation's
 * arguments ('input.inputs.noael.0.dose.unit', docs/console-developers.md, Conventions) without its prefix, list indexes bracketed.
 */
function inputPath(field: string | null | undefined): string {
  return (field ?? '').replace(/^(input\.)?(inputs\.)?/, '').replace(/\.(\d+)(?=\.|$)/g, '[$1]')
}

export function Skills({ slug }: { slug: string }) {
  const [home] = useQuery({ query: RoleHomeDocument, variables: { slug } })
  const program = home.data?.program
  useEffect(() => {
    if (program?.name) document.title = `${program.name}: skills`
  }, [program?.name])
  if (home.fetching && !home.data) return <main id="main" className="page"><p role="status">Loading…</p></main>
  if (!program?.id) {
    return <ProgramUnavailable />
  }
  return (
    <main id="main" className="page record-page">
      <nav aria-label="Breadcrumb" className="crumbs"><Link href={`/p/${encodeURIComponent(slug)}/home`}>{program.name}</Link></nav>
      <h1>Skills</h1>
      <DoseProjection programId={program.id} />
      <NcaExtraction programId={program.id} />
    </main>
  )
}

/** A labelled field with its error beside it (aria-describedby), never elsewhere on the page. */
function Field({ label, error, children, id }: { label: string; error?: string; children: (describedBy?: string) => ReactNode; id: string }) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children(error ? `${id}-error` : undefined)}
      {error ? <p id={`${id}-error`} className="problem field-error" role="alert">{error}</p> : null}
    </div>
  )
}

interface NoaelRow { species: string; value: string; unit: string; citation: string }

/** The dose form's fields as its labels name them. */
function doseFieldLabel(field: string): string | undefined {
  const m = /^noael\[(\d+)\]\.(.+)$/.exec(field)
  if (m) {
    const part = { species: 'species', 'dose.value': 'dose', dose: 'dose', 'dose.unit': 'dose unit', citation: 'source' }[m[2]]
    return part ? `${part} of NOAEL ${Number(m[1]) + 1}` : undefined
  }
  return { route: 'intended clinical route', noael: 'NOAEL' }[field]
}

function DoseProjection({ programId }: { programId: string }) {
  const id = useId()
  const skill = useRunSkill(programId, doseFieldLabel)
  const [rows, setRows] = useState<NoaelRow[]>([{ species: 'rat', value: '', unit: 'mg/kg', citation: '' }])
  const [route, setRoute] = useState('oral')
  const set = (i: number, patch: Partial<NoaelRow>) => setRows((r) => r.map((row, j) => (j === i ? { ...row, ...patch } : row)))
  const submit = (e: FormEvent) => {
    e.preventDefault()
    void skill.submit('tox.fih_dose_projection', {
      route,
      noael: rows.map((r) => ({ species: r.species, dose: { value: r.value.trim() === '' ? null : Number(r.value), unit: r.unit.trim() }, citation: r.citation.trim() })),
    })
  }
  const err = skill.problems.byField
  return (
    <section aria-labelledby={`${id}-h`} className="region">
      <h2 id={`${id}-h`}>First-in-human dose projection</h2>
      <form className="stack" onSubmit={submit} data-testid="dose-form">
        {rows.map((r, i) => (
          <fieldset key={i} className="unit-row">
            <legend>NOAEL {i + 1}</legend>
            <Field id={`${id}-sp-${i}`} label="Species" error={err[`noael[${i}].species`]}>
              {(d) => (
                <select id={`${id}-sp-${i}`} aria-describedby={d} value={r.species} onChange={(e) => set(i, { species: e.target.value })}>
                  {SPECIES.map((s) => <option key={s.key} value={s.key}>{s.label}</option>)}
                </select>
              )}
            </Field>
            <Field id={`${id}-v-${i}`} label="Dose" error={err[`noael[${i}].dose.value`] ?? err[`noael[${i}].dose`]}>
              {(d) => <input id={`${id}-v-${i}`} aria-describedby={d} inputMode="decimal" value={r.value} onChange={(e) => set(i, { value: e.target.value })} />}
            </Field>
            <Field id={`${id}-u-${i}`} label="Dose unit" error={err[`noael[${i}].dose.unit`]}>
              {(d) => <input id={`${id}-u-${i}`} aria-describedby={d} value={r.unit} onChange={(e) => set(i, { unit: e.target.value })} />}
            </Field>
            <Field id={`${id}-c-${i}`} label="Where this NOAEL comes from" error={err[`noael[${i}].citation`]}>
              {(d) => <input id={`${id}-c-${i}`} aria-describedby={d} value={r.citation} onChange={(e) => set(i, { citation: e.target.value })} />}
            </Field>
          </fieldset>
        ))}
        <div className="actions">
          <button type="button" className="quiet" onClick={() => setRows((r) => [...r, { species: 'dog', value: '', unit: 'mg/kg', citation: '' }])}>Add a species</button>
        </div>
        <Field id={`${id}-route`} label="Intended clinical route" error={err.route}>
          {(d) => (
            <select id={`${id}-route`} aria-describedby={d} value={route} onChange={(e) => setRoute(e.target.value)}>
              <option value="oral">Oral</option>
              <option value="iv">Intravenous</option>
              <option value="sc">Subcutaneous</option>
            </select>
          )}
        </Field>
        <div className="actions"><button type="submit" disabled={skill.busy}>Project the dose</button></div>
        {skill.problems.form ? <p role="alert" className="problem">{skill.problems.form}</p> : null}
      </form>
      {skill.result ? <SkillResultView result={skill.result} /> : null}
    </section>
  )
}

/** The NCA form's fields as its labels name them. */
function ncaFieldLabel(field: string): string | undefined {
  const row = /^rows\[(\d+)\]\.(time|conc)$/.exec(field)
  if (row) return `${row[2] === 'time' ? 'time' : 'concentration'} of sample ${Number(row[1]) + 1}`
  return ({ rows: 'concentrations', time_unit: 'time unit', conc_unit: 'concentration unit', dose: 'dose at time zero', 'dose.value': 'dose at time zero', 'dose.unit': 'dose unit', route: 'route', citation: 'source of the table' } as Record<string, string>)[field]
}

const BLQ = /^(blq|bql|<\s*lloq|<\s*loq|below lloq|nd)$/i

/**
 * Concentrations as typed or pasted from a spreadsheet: one sample a line, the time then the concentration, separated
 * by a tab, a comma, a semicolon or spaces; a header row is allowed (a first line whose cells are not numbers); an
 * empty line is skipped; 'BLQ' (or BQL, <LLOQ) marks a sample below the limit of quantification. A cell that is not a
 * number is refused in words, with its line.
 */
export function parseConcentrations(text: string): { rows: { time: number; conc: number | null; blq?: true }[] } | { problem: string } {
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean)
  const sep = lines.some((l) => l.includes('\t')) ? /\t/ : lines.some((l) => l.includes(',')) ? /\s*,\s*/ : lines.some((l) => l.includes(';')) ? /\s*;\s*/ : /\s+/
  const number = (cell: string) => (cell.trim() !== '' && Number.isFinite(Number(cell.trim())) ? Number(cell.trim()) : null)
  const rows: { time: number; conc: number | null; blq?: true }[] = []
  for (const [i, line] of lines.entries()) {
    const [t = '', c = ''] = line.split(sep).map((x) => x.trim())
    if (i === 0 && number(t) === null && number(c) === null && !BLQ.test(c)) continue // a header row
    const time = number(t)
    if (time === null) return { problem: `Line ${i + 1}: the time “${t}” is not a number. Enter the time, then the concentration.` }
    if (BLQ.test(c)) { rows.push({ time, conc: null, blq: true }); continue }
    const conc = number(c)
    if (conc === null) return { problem: c ? `Line ${i + 1}: the concentration “${c}” is not a number (write BLQ for a sample below the limit).` : `Line ${i + 1}: no concentration after the time ${t}.` }
    rows.push({ time, conc })
  }
  return { rows }
}

function NcaExtraction({ programId }: { programId: string }) {
  const id = useId()
  const skill = useRunSkill(programId, ncaFieldLabel)
  const [table, setTable] = useState('')
  const [timeUnit, setTimeUnit] = useState('h')
  const [concUnit, setConcUnit] = useState('mg/L')
  const [dose, setDose] = useState('')
  const [doseUnit, setDoseUnit] = useState('mg')
  const [route, setRoute] = useState('oral')
  const [citation, setCitation] = useState('')
  const submit = (e: FormEvent) => {
    e.preventDefault()
    const parsed = parseConcentrations(table)
    if ('problem' in parsed) return skill.refuse({ rows: parsed.problem })
    void skill.submit('tox.pk_parameter_extraction', {
      rows: parsed.rows, time_unit: timeUnit.trim(), conc_unit: concUnit.trim(), route,
      dose: { value: dose.trim() === '' ? null : Number(dose), unit: doseUnit.trim() },
      ...(citation.trim() ? { citation: citation.trim() } : {}),
    })
  }
  const err = skill.problems.byField
  return (
    <section aria-labelledby={`${id}-h`} className="region">
      <h2 id={`${id}-h`}>Pharmacokinetic parameters (NCA)</h2>
      <form className="stack" onSubmit={submit} data-testid="nca-form">
        <Field id={`${id}-rows`} label="Concentrations: one line per sample, the time then the concentration (paste from a spreadsheet: tab or comma separated, a header row allowed)" error={err.rows}>
          {(d) => <textarea id={`${id}-rows`} aria-describedby={d} rows={6} value={table} onChange={(e) => setTable(e.target.value)} />}
        </Field>
        <div className="unit-row">
          <Field id={`${id}-tu`} label="Time unit" error={err.time_unit}>
            {(d) => <input id={`${id}-tu`} aria-describedby={d} value={timeUnit} onChange={(e) => setTimeUnit(e.target.value)} />}
          </Field>
          <Field id={`${id}-cu`} label="Concentration unit" error={err.conc_unit}>
            {(d) => <input id={`${id}-cu`} aria-describedby={d} value={concUnit} onChange={(e) => setConcUnit(e.target.value)} />}
          </Field>
        </div>
        <div className="unit-row">
          <Field id={`${id}-d`} label="Dose at time zero" error={err['dose.value'] ?? err.dose}>
            {(d) => <input id={`${id}-d`} aria-describedby={d} inputMode="decimal" value={dose} onChange={(e) => setDose(e.target.value)} />}
          </Field>
          <Field id={`${id}-du`} label="Dose unit" error={err['dose.unit']}>
            {(d) => <input id={`${id}-du`} aria-describedby={d} value={doseUnit} onChange={(e) => setDoseUnit(e.target.value)} />}
          </Field>
        </div>
        <Field id={`${id}-route`} label="Route" error={err.route}>
          {(d) => (
            <select id={`${id}-route`} aria-describedby={d} value={route} onChange={(e) => setRoute(e.target.value)}>
              {NCA_ROUTES.map((r) => <option key={r.key} value={r.key}>{r.label}</option>)}
            </select>
          )}
        </Field>
        <Field id={`${id}-cite`} label="Where the table comes from (optional)" error={err.citation}>
          {(d) => <input id={`${id}-cite`} aria-describedby={d} value={citation} onChange={(e) => setCitation(e.target.value)} />}
        </Field>
        <div className="actions"><button type="submit" disabled={skill.busy}>Extract the parameters</button></div>
        {skill.problems.form ? <p role="alert" className="problem">{skill.problems.form}</p> : null}
      </form>
      {skill.result ? <SkillResultView result={skill.result} /> : null}
    </section>
  )
}

interface OutputInWords { name: string; label: string; text: string; unit?: string | null }

const withUnit = (text: string, unit?: string | null) => (unit ? `${text} ${unit}` : text)

function SkillResultView({ result }: { result: any }) {
  const headingId = useId()
  const outputs = (result.outputValues ?? []) as OutputInWords[]
  const isNca = result.skillKey === 'tox.pk_parameter_extraction'
  const columns = ((result.tables?.profile?.columns ?? []) as { key: string; unit_display?: string; unit_ucum?: string }[])
  const unitOf = (key: string) => { const c = columns.find((x) => x.key === key); return c?.unit_display || c?.unit_ucum || '' }
  return (
    <section className="skill-result" aria-labelledby={headingId} data-testid="skill-result" tabIndex={-1}>
      <h3 id={headingId}>{result.header ?? 'Result'}</h3>
      <p className="method-line" data-testid="method-line">{withReadableDates(result.methodLine ?? '')}</p>
      {result.warnings?.length ? <ul className="lines warnings">{result.warnings.map((w: string, i: number) => <li key={i}>{w}</li>)}</ul> : null}
      {isNca ? (
        <div className="nca-result">
          <NcaPlots points={profilePoints(result.tables)} timeUnit={unitOf('time')} concUnit={unitOf('conc')} />
          <div className="table-scroll">
            <table className="parameters" data-testid="nca-parameters">
              <caption>Parameters</caption>
              <thead><tr><th scope="col">Parameter</th><th scope="col">Value</th><th scope="col">Unit</th></tr></thead>
              <tbody>
                {outputs.map((o) => <tr key={o.name}><th scope="row">{o.label}</th><td>{o.text}</td><td>{o.unit ?? ''}</td></tr>)}
              </tbody>
            </table>
          </div>
        </div>
      ) : (
        <dl className="outputs">
          {outputs.map((o) => <div key={o.name}><dt>{o.label}</dt><dd>{withUnit(o.text, o.unit)}</dd></div>)}
        </dl>
      )}
      <h4>{SKILLS.howComputed}</h4>
      <ol className="lines" data-testid="intermediate-values">
        {((result.steps ?? []) as { label: string; text: string; unit?: string | null; note?: string | null }[]).map((v, i) => (
          <li key={`${v.label}-${i}`}>{v.label}: {withUnit(v.text, v.unit)}{v.note ? <span className="muted"> ({v.note})</span> : null}</li>
        ))}
      </ol>
      {result.rulesApplied?.length ? (
        <>
          <p className="label">Rules applied</p>
          <ul className="lines" data-testid="rules-applied">{(result.rulesApplied as string[]).map((r, i) => <li key={i}>{r}</li>)}</ul>
        </>
      ) : null}
    </section>
  )
}
