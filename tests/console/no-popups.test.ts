// The static half of "no popups" (R4 gate list: "the no-popups lint ... in the web check"): nothing in the console's
// source (console/src/**, its page) calls alert, confirm, prompt or window.open or opens a modal dialog, and no modal
// library is among the project's dependencies. The runtime half is watchForPopups in every browser check.
import { readFileSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT_DIR } from '../../core/config'
import { findPopupCode, POPUP_CODE } from '../helpers/web-checks'

const CONSOLE = path.join(ROOT_DIR, 'console')

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name)
    return statSync(full).isDirectory() ? files(full) : [full]
  })
}

describe('no popups in the console', () => {
  it('calls no alert, confirm, prompt or window.open and opens no modal dialog anywhere in console/src or its page', () => {
    // The generated typed documents hold no code that runs a popup; they are read all the same (they are bundled).
    const sources = [...files(path.join(CONSOLE, 'src')), path.join(CONSOLE, 'index.html')].filter((f) => /\.(tsx?|jsx?|mjs|html)$/.test(f))
    expect(sources.length).toBeGreaterThan(10)
    const found = sources.flatMap((f) => findPopupCode(readFileSync(f, 'utf8')).map((p) => `${path.relative(ROOT_DIR, f)}:${p.line}: ${p.what}: ${p.code}`))
    expect(found).toEqual([])
  })

  it('depends on no modal library', () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT_DIR, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>
    const names = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies })
    const library = POPUP_CODE.find((p) => p.what === 'a modal library')!.pattern
    expect(names.filter((name) => library.test(`from '${name}'`))).toEqual([])
  })
})
