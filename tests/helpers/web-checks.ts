// The web checks of issue 27 (the R4 gate list's "no-popups lint and plumbing-word copy test in the web check; a
// screenshot set at 1440 and 390 widths with zero console errors"), reusable on any page:
//
//   const checks = await watchScreens(page)      // before the first navigation: errors, failed requests, popups
//   await page.goto(...)
//   await checkScreen(page, 'role-home', { primaryAction: page.getByRole('button', { name: 'Approve' }) })
//
// checkScreen looks at the page at 1440 and 390 pixels wide and fails listing every problem it found: console errors,
// page errors, failed requests, plumbing words (core/text/plumbing-words.ts) in the visible text and the attributes people
// read, axe-core's serious and critical violations, horizontal scrolling, a primary action not visible, a popup or a
// modal. It writes the two pictures to the screenshot folder (SCREENSHOTS_DIR, else .data/screenshots/<date>/).
//
// findPopupCode is the static half of "no popups": the console's source calls no alert, confirm, prompt or
// window.open and opens no modal dialog.
import { mkdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import type { Locator, Page } from 'playwright-core'
import { ROOT_DIR } from '../../core/config'
import { findPlumbingWords, type PlumbingFinding } from '../../core/text'
import { watchPage, type PageWatch } from './browser'

/** The widths of the screenshot set: a laptop and a phone. */
export const WIDTHS = [1440, 390] as const
const HEIGHT: Record<number, number> = { 1440: 900, 390: 844 }

// ---- the screenshot folder ----------------------------------------------------------------------------------------

let announced = ''

/** Where the pictures go (created, and printed once): SCREENSHOTS_DIR, else .data/screenshots/<UTC date>/ (git-ignored). */
export function screenshotFolder(): string {
  const dir = process.env.SCREENSHOTS_DIR || path.join(ROOT_DIR, '.data', 'screenshots', new Date().toISOString().slice(0, 10))
  mkdirSync(dir, { recursive: true })
  if (announced !== dir) {
    announced = dir
    console.info(`web checks: screenshots in ${dir}`)
  }
  return dir
}

// ---- watching a page: errors, failed requests, popups -------------------------------------------------------------

export interface PopupWatch {
  /** alert, confirm, prompt and beforeunload dialogs that fired (each dismissed). */
  dialogs: string[]
  /** Windows the page opened (window.open, target=_blank), each closed. */
  popups: string[]
  /** Modal elements seen in the DOM at any moment since the watch began, across reloads and navigations. */
  modals(): Promise<string[]>
  /** Everything above, as problems; empty when none fired. */
  problems(): Promise<string[]>
}

/**
 * Records in the page every modal that appears at any moment (not only when a check looks): dialog[open], :modal,
 * aria-modal="true", role="alertdialog", and each showModal() call. An init script, so it is there before the page's
 * own scripts and is not subject to its Content-Security-Policy.
 */
function recordModals(): void {
  const g = globalThis as any
  if (g.__webChecksModals) return
  const seen: string[] = []
  Object.defineProperty(g, '__webChecksModals', { value: seen })
  const describe = (el: any) => String(el.outerHTML).replace(/\s+/g, ' ').slice(0, 160)
  // Kept in the page and reported to the test (the binding watchForPopups exposes), so a reload loses nothing.
  const note = (d: string) => {
    if (seen.includes(d)) return
    seen.push(d)
    void g.__webChecksModalSeen?.(d)
  }
  const look = () => {
    let found: any[] = []
    try {
      found = [...g.document.querySelectorAll('dialog[open], :modal, [aria-modal="true"], [role="alertdialog"]')]
    } catch {
      found = [...g.document.querySelectorAll('dialog[open], [aria-modal="true"], [role="alertdialog"]')]
    }
    for (const el of found) note(describe(el))
  }
  const proto = g.HTMLDialogElement?.prototype
  if (proto?.showModal) {
    const showModal = proto.showModal
    proto.showModal = function (this: any) {
      note(`showModal() on ${describe(this)}`)
      return showModal.call(this)
    }
  }
  new g.MutationObserver(look).observe(g.document, { subtree: true, childList: true, attributes: true, attributeFilter: ['open', 'aria-modal', 'role'] })
}

/** The runtime half of "no popups": await it before the page's first navigation. */
export async function watchForPopups(page: Page): Promise<PopupWatch> {
  const dialogs: string[] = []
  const popups: string[] = []
  page.on('dialog', (dialog) => {
    dialogs.push(`${dialog.type()}: ${dialog.message()}`)
    void dialog.dismiss().catch(() => {})
  })
  page.on('popup', (popup) => {
    popups.push(`a window opened at ${popup.url() || 'about:blank'}`)
    void popup.close().catch(() => {})
  })
  const reported: string[] = []
  const remember = (d: string) => { if (!reported.includes(d)) reported.push(d) }
  // Both in place before the first navigation (awaited: the browser handles them concurrently with a navigation).
  await page.exposeFunction('__webChecksModalSeen', remember)
  await page.addInitScript(recordModals)
  const modals = async () => {
    try {
      for (const d of await page.evaluate(() => [...(((globalThis as any).__webChecksModals as string[] | undefined) ?? [])])) remember(d)
    } catch {
      // a page between documents: what its earlier documents saw was reported already
    }
    return [...reported]
  }
  return {
    dialogs,
    popups,
    modals,
    async problems() {
      return [...dialogs.map((d) => `a popup fired (${d})`), ...popups.map((p) => `a popup fired (${p})`), ...(await modals()).map((m) => `a modal dialog was open: ${m}`)]
    },
  }
}

export interface ScreenWatch extends PageWatch {
  /** Requests that failed (network) or were answered 400 or above. */
  failedRequests: string[]
  popups: PopupWatch
}

const watches = new WeakMap<Page, ScreenWatch & { seen: Record<'consoleErrors' | 'pageErrors' | 'failedRequests' | 'foreignRequests', number> }>()

/**
 * Watches a page for everything checkScreen fails on between screens: console and page errors, failed requests,
 * requests leaving 127.0.0.1, popups and modals. Await it before the page's first navigation.
 */
export async function watchScreens(page: Page): Promise<ScreenWatch> {
  const base = watchPage(page)
  const failedRequests: string[] = []
  page.on('requestfailed', (req) => {
    const failure = req.failure()?.errorText ?? 'failed'
    // A request the page itself cancelled (a component unmounting, a navigation) is not a failure the person sees.
    if (failure === 'net::ERR_ABORTED') return
    failedRequests.push(`${req.method()} ${req.url()}: ${failure}`)
  })
  page.on('response', (res) => {
    if (res.status() >= 400) failedRequests.push(`${res.request().method()} ${res.url()}: ${res.status()}`)
  })
  const watch = Object.assign(base, { failedRequests, popups: await watchForPopups(page) })
  watches.set(page, Object.assign(watch, { seen: { consoleErrors: 0, pageErrors: 0, failedRequests: 0, foreignRequests: 0 } }))
  return watch
}

/** What the watch recorded since the last screen was checked (so each problem is named once, at its screen). */
function newSinceLastScreen(page: Page): string[] {
  const w = watches.get(page)
  if (!w) throw new Error('checkScreen needs watchScreens(page) called before the page was opened')
  const out: string[] = []
  const label = { consoleErrors: 'console error', pageErrors: 'page error', failedRequests: 'failed request', foreignRequests: 'request leaving 127.0.0.1' } as const
  for (const key of Object.keys(label) as (keyof typeof label)[]) {
    out.push(...w[key].slice(w.seen[key]).map((e) => `${label[key]}: ${e}`))
    w.seen[key] = w[key].length
  }
  return out
}

// ---- the checks of one screen at one width -------------------------------------------------------------------------

export interface TextSeen {
  /** Where the text is: 'text', 'title', or an attribute with its element ('aria-label of button'). */
  where: string
  text: string
}

/** What a person reads: the document title, the body's rendered text, and the attributes read aloud or shown. */
export async function visibleText(page: Page): Promise<TextSeen[]> {
  return page.evaluate(() => {
    const d = (globalThis as any).document
    const out: { where: string; text: string }[] = [{ where: 'title', text: d.title }, { where: 'text', text: d.body?.innerText ?? '' }]
    for (const attr of ['aria-label', 'aria-description', 'aria-roledescription', 'aria-valuetext', 'placeholder', 'title', 'alt']) {
      for (const el of d.querySelectorAll(`[${attr}]`)) out.push({ where: `${attr} of ${el.tagName.toLowerCase()}`, text: el.getAttribute(attr) })
    }
    for (const el of d.querySelectorAll('input:not([type=hidden]):not([type=password]), textarea')) {
      if (el.value) out.push({ where: `value of ${el.tagName.toLowerCase()}`, text: el.value })
    }
    return out
  })
}

/** The plumbing words a person would read on the page now. */
export async function plumbingWordsOnPage(page: Page): Promise<(PlumbingFinding & { where: string })[]> {
  return (await visibleText(page)).flatMap(({ where, text }) => findPlumbingWords(text).map((f) => ({ ...f, where })))
}

const require = createRequire(import.meta.url)
let axeSource: string | undefined

export interface AxeViolation {
  id: string
  impact: string
  help: string
  targets: string[]
}

/**
 * axe-core's serious and critical violations on the page now. axe's source is evaluated in the page from the npm
 * package (no CDN); page.evaluate rather than a script tag, since an inline script is refused by the console's
 * Content-Security-Policy (script-src 'self') and would itself be a console error.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  axeSource ??= readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8')
  if (!(await page.evaluate(() => Boolean((globalThis as any).axe)))) await page.evaluate(axeSource)
  const violations = await page.evaluate(async () => {
    const result = await (globalThis as any).axe.run((globalThis as any).document, { resultTypes: ['violations'] })
    return (result.violations as any[]).map((v) => ({
      id: String(v.id), impact: String(v.impact), help: String(v.help),
      targets: (v.nodes as any[]).map((n) => (n.target as unknown[]).join(' ')),
    }))
  })
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
}

/** How far the page scrolls sideways (0 when it does not), and the elements that stick out. */
export async function horizontalOverflow(page: Page): Promise<{ by: number; culprits: string[] }> {
  return page.evaluate(() => {
    const d = (globalThis as any).document
    const width = d.documentElement.clientWidth
    const by = Math.max(d.documentElement.scrollWidth, d.body?.scrollWidth ?? 0) - width
    if (by <= 0) return { by: 0, culprits: [] }
    const culprits: string[] = []
    for (const el of d.body.querySelectorAll('*')) {
      const r = el.getBoundingClientRect()
      if (r.right > width + 1 && r.width > 0) {
        const name = `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${typeof el.className === 'string' && el.className ? `.${el.className.trim().split(/\s+/).join('.')}` : ''}`
        culprits.push(`${name} (right edge at ${Math.round(r.right)} px)`)
        if (culprits.length >= 5) break
      }
    }
    return { by, culprits }
  })
}

/**
 * Why the primary action is not visible to the person, or null when it is: it must exist, be rendered, sit inside the
 * page's width, come into the viewport when scrolled to, and not be covered by another element.
 */
export async function primaryActionProblem(page: Page, action: Locator): Promise<string | null> {
  const first = action.first()
  if ((await action.count()) === 0) return 'the primary action is not on the page'
  if (!(await first.isVisible())) return 'the primary action is hidden'
  await first.scrollIntoViewIfNeeded({ timeout: 2_000 }).catch(() => {})
  const box = await first.boundingBox()
  const viewport = page.viewportSize()
  if (!box || !viewport || box.width < 1 || box.height < 1) return 'the primary action has no size'
  if (box.x < 0 || box.x + box.width > viewport.width + 1) return `the primary action lies outside the page's width (x ${Math.round(box.x)} to ${Math.round(box.x + box.width)} of ${viewport.width})`
  if (box.y < 0 || box.y + box.height > viewport.height + 1) return 'the primary action cannot be scrolled into view'
  const covered = await first.evaluate((el: any) => {
    const r = el.getBoundingClientRect()
    const top = (globalThis as any).document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2)
    return top && top !== el && !el.contains(top) ? String(top.outerHTML).slice(0, 80) : null
  })
  return covered ? `the primary action is covered by ${covered}` : null
}

/** Lets layout, fonts and pending frames settle after navigation or a resize. */
async function settle(page: Page): Promise<void> {
  await page.evaluate(async () => {
    const g = globalThis as any
    await g.document.fonts?.ready
    await new Promise((r) => g.requestAnimationFrame(() => g.requestAnimationFrame(r)))
  })
}

export interface CheckScreenOptions {
  /** The one action the screen exists for (a locator on this page); it must be visible at every width. */
  primaryAction: Locator
  /** Where the pictures go (default screenshotFolder()). */
  screenshotDir?: string
  widths?: readonly number[]
}

export interface ScreenResult {
  screenshots: string[]
  problems: string[]
}

/** Every problem of the screen at one width (the picture is written even when there are problems, to look at). */
async function problemsAt(page: Page, name: string, width: number, opts: CheckScreenOptions, dir: string, screenshots: string[]): Promise<string[]> {
  await page.setViewportSize({ width, height: HEIGHT[width] ?? 900 })
  await settle(page)
  const problems: string[] = []
  for (const f of await plumbingWordsOnPage(page)) problems.push(`plumbing word (${f.name}: ${f.why}) in ${f.where}: '${f.match}' in '${f.context}'`)
  for (const v of await axeViolations(page)) problems.push(`axe ${v.impact} ${v.id}: ${v.help} at ${v.targets.slice(0, 3).join(', ')}`)
  const overflow = await horizontalOverflow(page)
  if (overflow.by > 0) problems.push(`scrolls sideways by ${overflow.by} px: ${overflow.culprits.join(', ')}`)
  const action = await primaryActionProblem(page, opts.primaryAction)
  if (action) problems.push(action)
  await page.evaluate(() => (globalThis as any).scrollTo(0, 0))
  const file = path.join(dir, `${name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')}-${width}.png`)
  await page.screenshot({ path: file, fullPage: true })
  screenshots.push(file)
  return problems.map((p) => `at ${width} px: ${p}`)
}

/** Looks at the screen at each width and returns what is wrong (see the header); checkScreen throws on it. */
export async function inspectScreen(page: Page, name: string, opts: CheckScreenOptions): Promise<ScreenResult> {
  const dir = opts.screenshotDir ?? screenshotFolder()
  mkdirSync(dir, { recursive: true })
  const w = watches.get(page)
  const start = page.viewportSize()
  const screenshots: string[] = []
  const problems: string[] = []
  try {
    for (const width of opts.widths ?? WIDTHS) problems.push(...(await problemsAt(page, name, width, opts, dir, screenshots)))
  } finally {
    if (start) await page.setViewportSize(start)
  }
  problems.push(...newSinceLastScreen(page))
  if (w) problems.push(...(await w.popups.problems()))
  return { screenshots, problems }
}

/** Fails, listing every problem, unless the screen passes every web check at 1440 and 390 pixels wide. */
export async function checkScreen(page: Page, name: string, opts: CheckScreenOptions): Promise<ScreenResult> {
  const result = await inspectScreen(page, name, opts)
  if (result.problems.length) throw new Error(`The ${name} screen fails the web checks:\n - ${result.problems.join('\n - ')}`)
  return result
}

// ---- the static half of "no popups" -------------------------------------------------------------------------------

/** Code that opens a popup or a modal dialog; each pattern names what it catches. */
export const POPUP_CODE: readonly { what: string; pattern: RegExp }[] = [
  { what: 'alert, confirm or prompt', pattern: /(?<![\w$.])(?:alert|confirm|prompt)\s*\(/ },
  { what: 'alert, confirm, prompt or open on the window', pattern: /\b(?:window|globalThis|self|top|parent|frames)\s*(?:\.\s*|\[\s*['"`])(?:alert|confirm|prompt|open|showModalDialog)\b/ },
  { what: 'window.open', pattern: /(?<![\w$.])open\s*\(\s*['"`]/ },
  { what: 'a <dialog> element', pattern: /<dialog\b|createElement\(\s*['"`]dialog['"`]/i },
  { what: 'showModal', pattern: /\bshowModal\b/ },
  { what: 'aria-modal', pattern: /aria-?modal/i },
  { what: 'role="dialog" or "alertdialog"', pattern: /\brole\s*[=:]\s*\{?\s*['"`](?:alert)?dialog['"`]/ },
  {
    what: 'a modal library',
    pattern: /from\s+['"`](?:react-modal|@radix-ui\/react-(?:alert-)?dialog|@headlessui\/react|@reach\/(?:alert-)?dialog|react-aria-modal|sweetalert2?|micromodal|@mui\/material(?:\/Dialog|\/Modal)?|antd|react-bootstrap(?:\/Modal)?|@chakra-ui\/(?:react|modal)|react-responsive-modal|@ariakit\/react)['"`]/,
  },
  { what: 'a Modal or Dialog component', pattern: /<(?:Modal|Dialog|AlertDialog)\b/ },
]

/** Each popup or modal a source text opens, with its line number. */
export function findPopupCode(text: string): { what: string; line: number; code: string }[] {
  // Comments may name what the code must not do; they are blanked (kept as spaces, so line numbers hold).
  const code = text.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' ')).replace(/(^|[^:'"`\\])\/\/.*$/gm, (_m, p1: string) => p1)
  const lines = code.split('\n')
  const found: { what: string; line: number; code: string }[] = []
  lines.forEach((line, i) => {
    for (const { what, pattern } of POPUP_CODE) if (pattern.test(line)) found.push({ what, line: i + 1, code: line.trim().slice(0, 120) })
  })
  return found
}
