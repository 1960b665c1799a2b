// Number helpers. Values in SkillValue.value are never rounded; only `display` strings are.

/** Display string with `sig` significant figures, never in exponent notation. */
export function formatSig(x: number, sig: number): string {
  if (!Number.isFinite(x)) return String(x)
  if (x === 0) return '0'
  const p = x.toPrecision(sig)
  if (!/e/i.test(p)) return p
  return plainDecimal(Number(p))
}

/** Display string with a fixed number of decimals. */
export function formatFixed(x: number, decimals: number): string {
  if (!Number.isFinite(x)) return String(x)
  const s = x.toFixed(decimals)
  return s === '-0' || /^-0\.0*$/.test(s) ? s.slice(1) : s
}

/** Plain decimal string for any finite double (no exponent). */
export function plainDecimal(x: number): string {
  const s = String(x)
  if (!/e/i.test(s)) return s
  const [mant, expS] = s.split(/e/i)
  const exp = Number(expS)
  const neg = mant.startsWith('-')
  const digits = mant.replace('-', '')
  const [intPart, fracPart = ''] = digits.split('.')
  const all = intPart + fracPart
  let pointPos = intPart.length + exp
  let res: string
  if (pointPos <= 0) res = '0.' + '0'.repeat(-pointPos) + all
  else if (pointPos >= all.length) res = all + '0'.repeat(pointPos - all.length)
  else res = all.slice(0, pointPos) + '.' + all.slice(pointPos)
  return (neg ? '-' : '') + res
}

/**
 * UCUM magnitudes are products of binary doubles, so 1 ug.h/mL comes back as 999.9999999999999
 * h.ng/mL. Converted values are normalised to 15 significant figures (the decimal precision a
 * double always carries); the relative change is below 5e-16.
 */
export function normalise15(x: number): number {
  if (!Number.isFinite(x) || x === 0) return x
  return Number(x.toPrecision(15))
}

/** True when a and b agree when both are written with `sig` significant figures. */
export function sameToSig(a: number, b: number, sig: number): boolean {
  return Number(a.toPrecision(sig)) === Number(b.toPrecision(sig))
}
