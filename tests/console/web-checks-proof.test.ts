// The web checks themselves (tests/helpers/web-checks.ts, core/text/plumbing-words.ts), proven able to fail: small fixture
// pages, served by a local HTTP server under the console's own strict Content-Security-Policy, each breaking one rule,
// in the same Chromium as the console's checks; and the plumbing-word list and the popup lint on strings.
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { existsSync } from 'node:fs'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { launchChromium } from '../helpers/browser'
import { checkScreen, findPopupCode, inspectScreen, watchScreens, type ScreenWatch } from '../helpers/web-checks'
import { findPlumbingWords } from '../../core/text'
import { ERROR_CODES } from '../../core/errors'
import * as copy from '../../core/text'

const CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'"

const page = (body: string, head = '') =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Fixture</title><link rel="icon" href="data:,">${head}</head>` +
  `<body><main><h1>Your programs</h1>${body}</main></body></html>`
const ACTION = '<button type="button" id="primary">Approve</button>'
const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;')

/** The fixture pages: each breaks one rule, except /clean. Scripts are files (the CSP refuses inline ones). */
const PAGES: Record<string, string> = {
  '/clean': page(`<p>Nothing waiting. Your twin's next pass is at 10:00.</p><p>Filed 26 November 2026, 10:00</p>${ACTION}`),
  '/alert': page(ACTION, '<script src="/alert.js"></script>'),
  '/confirm-on-click': page(ACTION, '<script src="/confirm.js" defer></script>'),
  '/open-on-click': page(ACTION, '<script src="/open.js" defer></script>'),
  '/show-modal': page(`<dialog id="d"><p>Sure?</p></dialog>${ACTION}`, '<script src="/modal.js" defer></script>'),
  '/aria-modal': page(`<div role="dialog" aria-modal="true" aria-label="Confirm"><p>Sure?</p></div>${ACTION}`),
  '/wide': page(`<div style="width:600px">A table wider than a phone</div>${ACTION}`),
  '/unlabelled-button': page(`${ACTION}<button type="button"></button>`),
  '/console-error': page(ACTION, '<script src="/error.js"></script>'),
  '/missing-image': page(`<img src="/nope.png" alt="">${ACTION}`),
  '/hidden-action': page('<button type="button" id="primary" style="display:none">Approve</button>'),
  '/action-off-page': page('<button type="button" id="primary" style="position:fixed;top:10px;left:-300px">Approve</button>'),
  '/aria-label-word': page(`<button type="button" id="primary" aria-label="Approve the JSON payload">Approve</button>`),
  '/placeholder-word': page(`<label for="n">Note</label><input id="n" placeholder="null">${ACTION}`),
}
const SCRIPTS: Record<string, string> = {
  '/alert.js': "alert('Saved')",
  '/confirm.js': "document.getElementById('primary').addEventListener('click', () => { confirm('Approve this?') })",
  '/open.js': "document.getElementById('primary').addEventListener('click', () => { window.open('/clean') })",
  '/modal.js': "document.getElementById('primary').addEventListener('click', () => { document.getElementById('d').showModal() })",
  '/error.js': "console.error('Something broke')",
}

let server: http.Server
let base = ''
let browser: Browser
let shots = ''

beforeAll(async () => {
  shots = await fs.mkdtemp(path.join(os.tmpdir(), 'web-checks-proof-'))
  server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fixture')
    const headers = { 'content-security-policy': CSP, 'cache-control': 'no-store' }
    if (url.pathname === '/words') {
      res.writeHead(200, { ...headers, 'content-type': 'text/html; charset=utf-8' })
      return res.end(page(`<p>${escapeHtml(url.searchParams.get('text') ?? '')}</p>${ACTION}`))
    }
    if (PAGES[url.pathname]) {
      res.writeHead(200, { ...headers, 'content-type': 'text/html; charset=utf-8' })
      return res.end(PAGES[url.pathname])
    }
    if (SCRIPTS[url.pathname]) {
      res.writeHead(200, { ...headers, 'content-type': 'text/javascript' })
      return res.end(SCRIPTS[url.pathname])
    }
    res.writeHead(404, { 'content-type': 'text/plain' })
    res.end('not found')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  browser = await launchChromium()
}, 120_000)

afterAll(async () => {
  await browser?.close()
  server?.closeAllConnections()
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))
  if (shots) await fs.rm(shots, { recursive: true, force: true })
})

let context: BrowserContext | undefined
afterEach(async () => {
  await context?.close()
  context = undefined
})

/** A fresh page watched from before its first navigation, opened at `route`. */
async function open(route: string): Promise<{ page: Page; watch: ScreenWatch }> {
  context = await browser.newContext()
  const p = await context.newPage()
  const watch = await watchScreens(p)
  await p.goto(`${base}${route}`, { waitUntil: 'load' })
  return { page: p, watch }
}

const inspect = (p: Page, name: string) => inspectScreen(p, name, { primaryAction: p.locator('#primary'), screenshotDir: shots })

describe('the web checks on fixture pages', () => {
  it('pass a clean page under a strict CSP, writing one picture per width, with axe injected without a console error', async () => {
    const { page: p, watch } = await open('/clean')
    const result = await checkScreen(p, 'Clean page', { primaryAction: p.locator('#primary'), screenshotDir: shots })
    expect(result.problems).toEqual([])
    expect(result.screenshots.map((f) => path.basename(f))).toEqual(['clean-page-1440.png', 'clean-page-390.png'])
    expect(result.screenshots.every((f) => existsSync(f))).toBe(true)
    expect(watch.consoleErrors).toEqual([])
  })

  it('fail a page that calls alert as it loads', async () => {
    const { page: p } = await open('/alert')
    const { problems } = await inspect(p, 'alert')
    expect(problems).toEqual(['a popup fired (alert: Saved)'])
    await expect(checkScreen(p, 'alert', { primaryAction: p.locator('#primary'), screenshotDir: shots })).rejects.toThrow(/The alert screen fails the web checks:\n - a popup fired \(alert: Saved\)/)
  })

  it('fail a journey in which a click asks confirm, opens a window, or opens a modal dialog', async () => {
    for (const [route, expected] of [
      ['/confirm-on-click', /^a popup fired \(confirm: Approve this\?\)$/],
      ['/open-on-click', /^a popup fired \(a window opened at .*\/clean\)$/],
      ['/show-modal', /^a modal dialog was open: showModal\(\) on <dialog id="d">/],
    ] as const) {
      const { page: p } = await open(route)
      expect((await inspect(p, 'before')).problems, route).toEqual([])
      await p.locator('#primary').click()
      await p.waitForTimeout(200)
      const { problems } = await inspect(p, 'after')
      expect(problems.some((x) => expected.test(x)), `${route}: ${problems.join(' | ')}`).toBe(true)
      await context!.close()
      context = undefined
    }
  })

  it('fail a page with an element marked aria-modal', async () => {
    const { page: p } = await open('/aria-modal')
    const { problems } = await inspect(p, 'aria-modal')
    expect(problems).toEqual([expect.stringMatching(/^a modal dialog was open: <div role="dialog" aria-modal="true"/)])
  })

  it('remember a modal seen before the page moved on: a reload or a navigation does not hide it', async () => {
    const { page: p, watch } = await open('/aria-modal')
    await p.goto(`${base}/clean`)
    await p.reload()
    expect(await watch.popups.problems()).toEqual([expect.stringMatching(/^a modal dialog was open: <div role="dialog" aria-modal="true"/)])
  })

  it("fail a page showing 'undefined', a UUID, 'stale_proposal', an ISO timestamp, 'role' alone or a model as author, naming the word at both widths", async () => {
    for (const [text, rule] of [
      ['Due undefined', 'undefined'],
      ['Record 3f2b6c1e-1234-4abc-8def-0123456789ab', 'UUID-shaped id'],
      ['stale_proposal', 'error code stale_proposal'],
      ['Filed 2026-11-26T10:00:00Z', 'unformatted timestamp'],
      ['Your role: Scientist', "'role' for a workbench role"],
      ['Model-generated draft', 'model or vendor as author'],
      ['Requested by Olivia Owner', 'never written: Requested by'],
    ]) {
      const { page: p } = await open(`/words?text=${encodeURIComponent(text)}`)
      const { problems } = await inspect(p, 'words')
      const words = problems.filter((x) => x.includes(`plumbing word (${rule}:`))
      expect(words.map((x) => x.slice(0, 10)), `${text}: ${problems.join(' | ')}`).toEqual(['at 1440 px', 'at 390 px:'])
      await context!.close()
      context = undefined
    }
  })

  it('read the attributes a person hears or sees too: an aria-label and a placeholder', async () => {
    const { page: p } = await open('/aria-label-word')
    expect((await inspect(p, 'aria-label')).problems).toContainEqual(expect.stringContaining("plumbing word (JSON: a data format) in aria-label of button: 'JSON'"))
    await context!.close()
    context = undefined
    const { page: q } = await open('/placeholder-word')
    expect((await inspect(q, 'placeholder')).problems).toContainEqual(expect.stringContaining("in placeholder of input: 'null'"))
  })

  it('fail a page wider than 390 pixels at 390 only, naming what sticks out', async () => {
    const { page: p } = await open('/wide')
    const { problems } = await inspect(p, 'wide')
    expect(problems).toEqual([expect.stringMatching(/^at 390 px: scrolls sideways by \d+ px: div \(right edge at \d+ px\)/)])
  })

  it('fail a button without a label through axe-core (critical)', async () => {
    const { page: p } = await open('/unlabelled-button')
    const { problems } = await inspect(p, 'unlabelled')
    expect(problems).toEqual([
      expect.stringMatching(/^at 1440 px: axe critical button-name: Buttons must have discernible text at button:nth-child\(3\)/),
      expect.stringMatching(/^at 390 px: axe critical button-name:/),
    ])
  })

  it('fail a console error and a failed request, once, at the screen where they happened', async () => {
    const { page: p } = await open('/console-error')
    expect((await inspect(p, 'console error')).problems).toEqual([expect.stringMatching(/^console error: Something broke/)])
    expect((await inspect(p, 'console error again')).problems).toEqual([])
    await context!.close()
    context = undefined
    const { page: q } = await open('/missing-image')
    const { problems } = await inspect(q, 'missing image')
    expect(problems).toContainEqual(expect.stringMatching(/^failed request: GET http:\/\/127\.0\.0\.1:\d+\/nope\.png: 404$/))
    expect(problems).toContainEqual(expect.stringMatching(/^console error: Failed to load resource/))
  })

  it('fail a primary action that is missing, hidden, or outside the page', async () => {
    const { page: p } = await open('/clean')
    expect((await inspectScreen(p, 'missing', { primaryAction: p.getByRole('button', { name: 'Decline' }), screenshotDir: shots })).problems)
      .toEqual(['at 1440 px: the primary action is not on the page', 'at 390 px: the primary action is not on the page'])
    await context!.close()
    context = undefined
    const { page: q } = await open('/hidden-action')
    expect((await inspect(q, 'hidden')).problems).toEqual(['at 1440 px: the primary action is hidden', 'at 390 px: the primary action is hidden'])
    await context!.close()
    context = undefined
    const { page: r } = await open('/action-off-page')
    expect((await inspect(r, 'off page')).problems).toEqual([
      expect.stringMatching(/^at 1440 px: the primary action lies outside the page's width/),
      expect.stringMatching(/^at 390 px: the primary action lies outside the page's width/),
    ])
  })
})

describe('the plumbing-word list', () => {
  it('holds every code of the error catalogue, and finds each as the person would read it', () => {
    const missed = ERROR_CODES.filter((code) => !findPlumbingWords(`The service said ${code}.`).some((f) => f.name === `error code ${code}`))
    expect(missed).toEqual([])
  })

  it('finds the words the issue names', () => {
    const names = (text: string) => findPlumbingWords(text).map((f) => f.name)
    expect(names('null')).toContain('null')
    expect(names('NaN mg/kg')).toContain('NaN')
    expect(names('[object Object]')).toContain('[object Object]')
    for (const word of ['GraphQL', 'webhook', 'interrupt', 'JSON', 'UUID']) expect(names(`The ${word} failed`), word).toContain(word)
    expect(names('UNAUTHENTICATED')).toContain('transport error code')
    expect(names('StaleProposal')).toContain('error type StaleProposal')
    expect(names('program_owner')).toContain('snake_case identifier')
    expect(names('Filed 2026-11-26 10:00:00+00')).toContain('unformatted timestamp')
    expect(names('Due 2026-11-26')).toContain('unformatted date')
    expect(names('TypeError: x is not a function\n    at render (http://127.0.0.1:3000/app.js:1:200)')).toEqual(
      expect.arrayContaining(['JavaScript error name', 'stack frame', 'source location']))
    for (const t of ['vendor-generated', 'generated by GPT-4', 'written by the model', 'Drafted by Claude']) expect(names(t), t).toContain('model or vendor as author')
    for (const phrase of Object.values(copy.NEVER_WRITTEN)) expect(names(`x ${phrase} y`), phrase).toContain(`never written: ${phrase}`)
  })

  it("passes the specification's own phrases, 'workbench role' in full, formatted dates, emails and ordinary English", () => {
    const clean = [
      ...copy.WORKBENCH.homeRegions, copy.WORKBENCH.pickerSentence, copy.MEMORY_PANEL.controls.suggestForTheRole, copy.sharedBy('quality reviewers'),
      copy.proposedByWorkingAs('Olivia Owner', 'Program lead', 'Liam Lead'), copy.FIXED_PHRASES.agentGeneratedDraft, copy.TWINS.changedSinceProposed,
      'Your workbench role: Scientist', 'Workbench-role picker', 'Filed 26 November 2026, 10:00', 'Olivia Owner, owner@illustrative.example',
      'Not found.', 'The null hypothesis was rejected.', 'SOP-2026-11-01 Sample handling', 'Agent-generated draft', 'Forbidden fruit',
    ]
    expect(clean.flatMap((t) => findPlumbingWords(t).map((f) => `${t}: ${f.name}`))).toEqual([])
  })
})

describe('the popup lint', () => {
  it('finds every way of opening a popup or a modal, and nothing in comments or ordinary code', () => {
    const bad = [
      "alert('Saved')", 'if (confirm(`Forget this?`)) forget()', "const answer = prompt('Reason')", "window.open('/p/x')", "globalThis['alert']('x')",
      "open('https://example.org')", '<dialog open>', "document.createElement('dialog')", 'ref.current.showModal()', '<div aria-modal="true">',
      '<div role="dialog">', "<section role='alertdialog'>", "import Modal from 'react-modal'", "import { Dialog } from '@headlessui/react'",
      "import * as Dialog from '@radix-ui/react-dialog'", "import Swal from 'sweetalert2'", '<Modal isOpen>',
    ]
    expect(bad.filter((line) => findPopupCode(line).length === 0)).toEqual([])
    const fine = [
      '// never alert(), confirm() or a <dialog>', '/* no window.open */', 'const [confirming, setConfirming] = useState(false)', 'onConfirm()',
      'props.confirm(x)', "setPanel('open')", 'isOpen(x)', 'aria-expanded={open}', "<p>Opens beside the regions</p>",
    ]
    expect(fine.flatMap((line) => findPopupCode(line).map((f) => `${line}: ${f.what}`))).toEqual([])
  })
})
