// The NCA result's concentration-time plot, drawn by the console as inline SVG (no charting dependency; the strict
// CSP allows it: SVG presentation attributes, no inline style): the profile the skill used, on a linear and on a
// semi-log axis, with the points of the terminal fit marked. It draws the skill's own table (tables.profile); it
// computes nothing but positions on the page.
import { useId } from 'react'

export interface ProfilePoint { time: number; conc: number; inFit: boolean }

/** The points of a result's tables.profile ({ rows: [{ time: {value}, conc: {value}, in_lambda_z: {value} }] }). */
export function profilePoints(tables: unknown): ProfilePoint[] {
  const rows = (tables as { profile?: { rows?: Record<string, { value?: unknown }>[] } } | null)?.profile?.rows ?? []
  return rows
    .map((r) => ({ time: Number(r.time?.value), conc: Number(r.conc?.value), inFit: r.in_lambda_z?.value === true }))
    .filter((p) => Number.isFinite(p.time) && Number.isFinite(p.conc))
}

const W = 360
const H = 240
const M = { left: 56, right: 12, top: 12, bottom: 40 }
const NUMBER = new Intl.NumberFormat('en-GB', { maximumSignificantDigits: 3 })

/** About five round ticks over [0, max]. */
function linearTicks(max: number): number[] {
  if (!(max > 0)) return [0]
  const step0 = max / 5
  const mag = 10 ** Math.floor(Math.log10(step0))
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= step0) ?? step0
  // From zero to the first tick at or above the largest value, so every point is inside the axis.
  const out: number[] = [0]
  while (out[out.length - 1] < max && out.length < 12) out.push(Number((out.length * step).toPrecision(12)))
  return out
}

function Axes({ x, y, xTicks, yTicks, xLabel, yLabel }: {
  x: (v: number) => number; y: (v: number) => number; xTicks: number[]; yTicks: number[]; xLabel: string; yLabel: string
}) {
  return (
    <g className="axes" aria-hidden="true">
      <line x1={M.left} y1={H - M.bottom} x2={W - M.right} y2={H - M.bottom} className="axis" />
      <line x1={M.left} y1={M.top} x2={M.left} y2={H - M.bottom} className="axis" />
      {xTicks.map((t) => (
        <g key={`x${t}`}>
          <line x1={x(t)} x2={x(t)} y1={H - M.bottom} y2={H - M.bottom + 4} className="axis" />
          <text x={x(t)} y={H - M.bottom + 16} textAnchor="middle" className="tick">{NUMBER.format(t)}</text>
        </g>
      ))}
      {yTicks.map((t) => (
        <g key={`y${t}`}>
          <line x1={M.left - 4} x2={M.left} y1={y(t)} y2={y(t)} className="axis" />
          <line x1={M.left} x2={W - M.right} y1={y(t)} y2={y(t)} className="grid" />
          <text x={M.left - 6} y={y(t) + 4} textAnchor="end" className="tick">{NUMBER.format(t)}</text>
        </g>
      ))}
      <text x={(M.left + W - M.right) / 2} y={H - 6} textAnchor="middle" className="axis-label">{xLabel}</text>
      <text x={14} y={(M.top + H - M.bottom) / 2} textAnchor="middle" className="axis-label" transform={`rotate(-90 14 ${(M.top + H - M.bottom) / 2})`}>{yLabel}</text>
    </g>
  )
}

function Plot({ points, scale, timeUnit, concUnit }: { points: ProfilePoint[]; scale: 'linear' | 'log'; timeUnit: string; concUnit: string }) {
  const titleId = useId()
  const tMax = Math.max(...points.map((p) => p.time), 0) || 1
  const xTicks = linearTicks(tMax)
  const xEnd = xTicks.at(-1) || tMax
  const x = (t: number) => M.left + (t / xEnd) * (W - M.left - M.right)
  // A semi-log axis shows the positive concentrations only (a zero has no logarithm): said below the plot.
  const shown = scale === 'log' ? points.filter((p) => p.conc > 0) : points
  const cMax = Math.max(...shown.map((p) => p.conc), 0) || 1
  let y: (c: number) => number
  let yTicks: number[]
  if (scale === 'linear') {
    yTicks = linearTicks(cMax)
    const yEnd = yTicks.at(-1) || cMax
    y = (c) => H - M.bottom - (c / yEnd) * (H - M.top - M.bottom)
  } else {
    const cMin = Math.min(...shown.map((p) => p.conc), cMax)
    const lo = Math.floor(Math.log10(cMin))
    const hi = Math.max(Math.ceil(Math.log10(cMax)), lo + 1)
    yTicks = Array.from({ length: hi - lo + 1 }, (_, i) => Number((10 ** (lo + i)).toPrecision(12)))
    y = (c) => H - M.bottom - ((Math.log10(c) - lo) / (hi - lo)) * (H - M.top - M.bottom)
  }
  const path = shown.map((p, i) => `${i ? 'L' : 'M'}${x(p.time).toFixed(1)},${y(p.conc).toFixed(1)}`).join(' ')
  const fitted = shown.filter((p) => p.inFit).length
  const label = `${scale === 'linear' ? 'Linear' : 'Semi-log'} plot of concentration (${concUnit}) against time (${timeUnit}): ${shown.length} points, ${fitted} of them used for the terminal slope.`
  return (
    <figure className="nca-plot" data-testid={`nca-plot-${scale}`}>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-labelledby={titleId} className="plot">
        <title id={titleId}>{label}</title>
        <Axes x={x} y={y} xTicks={xTicks} yTicks={yTicks} xLabel={`Time (${timeUnit})`} yLabel={`Concentration (${concUnit})`} />
        <path d={path} className="profile-line" aria-hidden="true" />
        {shown.map((p, i) => (
          p.inFit
            ? <rect key={i} x={x(p.time) - 4.5} y={y(p.conc) - 4.5} width={9} height={9} className="point in-fit" data-in-fit="true" />
            : <circle key={i} cx={x(p.time)} cy={y(p.conc)} r={4} className="point" data-in-fit="false" />
        ))}
      </svg>
      <figcaption>{scale === 'linear' ? 'Linear' : 'Semi-log'}{scale === 'log' && shown.length < points.length ? ` (${points.length - shown.length} zero ${points.length - shown.length === 1 ? 'concentration' : 'concentrations'} not shown)` : ''}</figcaption>
    </figure>
  )
}

/** Both plots and the legend. */
export function NcaPlots({ points, timeUnit, concUnit }: { points: ProfilePoint[]; timeUnit: string; concUnit: string }) {
  if (!points.length) return null
  return (
    <div className="nca-plots">
      <Plot points={points} scale="linear" timeUnit={timeUnit} concUnit={concUnit} />
      <Plot points={points} scale="log" timeUnit={timeUnit} concUnit={concUnit} />
      <p className="legend muted">
        <svg viewBox="0 0 12 12" width="12" height="12" aria-hidden="true"><rect x="1.5" y="1.5" width="9" height="9" className="point in-fit" /></svg> used for the terminal slope{' '}
        <svg viewBox="0 0 12 12" width="12" height="12" aria-hidden="true"><circle cx="6" cy="6" r="4" className="point" /></svg> other samples
      </p>
    </div>
  )
}
