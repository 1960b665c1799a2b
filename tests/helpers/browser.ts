// Headless Chromium for browser tests (Debian's /usr/bin/chromium driven by playwright-core), plus helpers
// to drive the gateway's GraphiQL page: open it, set the bearer token, run an operation, read the result.
import { existsSync } from 'node:fs'
import { chromium, type Browser, type ConsoleMessage, type Page, type Request } from 'playwright-core'

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/**
 * Launches headless Chromium with the flags this machine needs (its network is closed: background
 * networking would fail loudly). playwright gives every launch a fresh temporary user-data-dir and removes
 * it on close.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM_PATH}: run \`apt-get update && apt-get install -y chromium\` (CI's .ci/run installs it), or set CHROMIUM_PATH`,
    )
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
}

export interface PageWatch {
  /** Console messages of type 'error' (includes failed resource loads and CSP violations). */
  consoleErrors: string[]
  /** Uncaught exceptions in the page. */
  pageErrors: string[]
  /** URLs requested from a host not in the allowed list (data: and blob: URLs are local and ignored). */
  foreignRequests: string[]
  /** The same array as foreignRequests (both names are in use). */
  externalRequests: string[]
  /** Every request URL, in order. */
  requests: string[]
}

/** Records console errors, page errors and requests leaving the allowed hosts (default 127.0.0.1). */
export function watchPage(page: Page, allowedHosts: string[] = ['127.0.0.1']): PageWatch {
  const foreign: string[] = []
  const watch: PageWatch = { consoleErrors: [], pageErrors: [], foreignRequests: foreign, externalRequests: foreign, requests: [] }
  page.on('console', (msg: ConsoleMessage) => {
    if (msg.type() === 'error') watch.consoleErrors.push(`${msg.text()} (${msg.location().url || 'no url'})`)
  })
  page.on('pageerror', (err) => watch.pageErrors.push(String(err)))
  const onRequest = (url: string) => {
    watch.requests.push(url)
    if (/^(data|blob|about):/.test(url)) return
    try {
      if (!allowedHosts.includes(new URL(url).hostname)) foreign.push(url)
    } catch {
      foreign.push(url)
    }
  }
  page.on('request', (req: Request) => onRequest(req.url()))
  page.on('websocket', (ws) => onRequest(ws.url()))
  // Requests made by the monaco web workers.
  page.on('worker', (worker) => onRequest(worker.url()))
  return watch
}

/** Loads the GraphiQL page and waits until the operation editor (monaco) is ready. */
export async function openGraphiql(page: Page, url: string): Promise<void> {
  await page.goto(url, { waitUntil: 'load' })
  await page.locator('.graphiql-query-editor .monaco-editor').first().waitFor({ state: 'visible', timeout: 20_000 })
  await page.locator('.graphiql-response .monaco-editor').first().waitFor({ state: 'visible', timeout: 20_000 })
}

/** Pastes the token into the "Bearer token" field and applies it (Enter). */
export async function setGraphiqlToken(page: Page, token: string): Promise<void> {
  const field = page.getByLabel('Bearer token')
  await field.fill(token)
  await field.press('Enter')
  await page.locator(`[data-testid="token-status"][data-state="${token ? 'set' : 'unset'}"]`).waitFor()
}

/**
 * Replaces the operation editor's text: select all, then a paste event (typed text would get monaco's
 * auto-indent and auto-closed brackets; a paste is inserted as is).
 */
export async function setGraphiqlOperation(page: Page, operation: string, opts: { settle?: boolean } = {}): Promise<void> {
  const editor = page.locator('.graphiql-query-editor .monaco-editor').first()
  await editor.click()
  await page.keyboard.press('ControlOrMeta+A')
  await page.keyboard.press('Delete')
  await editor.locator('textarea').first().evaluate((textarea, text) => {
    // Runs in the page (the project's tsconfig has no DOM lib, hence the untyped globals).
    const g = globalThis as any
    const data = new g.DataTransfer()
    data.setData('text/plain', text)
    textarea.dispatchEvent(new g.ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }))
  }, operation)
  // (No Escape here: it would cancel monaco's paste while it is still being applied.)
  const lines = page.locator('.graphiql-query-editor .monaco-editor .view-lines').first()
  const norm = (text: string) => text.replace(/\u00a0/g, ' ').replace(/\s+/g, ' ').trim()
  const deadline = Date.now() + 5_000
  while (norm(await lines.innerText()) !== norm(operation)) {
    if (Date.now() > deadline) throw new Error(`GraphiQL operation editor did not take the text:\n${operation}`)
    await page.waitForTimeout(20)
  }
  // GraphiQL re-parses the operation 100 ms after the last edit (debounced); running earlier sends the previous
  // document's facts with the new text (`settle: false` runs that race on purpose: the page must still pick the socket).
  if (opts.settle !== false) await page.waitForTimeout(250)
}

/** The response pane's text (monaco renders only visible lines: fine for short results). */
export async function readGraphiqlResult(page: Page): Promise<string> {
  const text = await page.locator('.graphiql-response .monaco-editor .view-lines').first().innerText()
  return text.replace(/\u00a0/g, ' ')
}

/** Waits until the response pane's text matches, and returns it. */
export async function waitForGraphiqlResult(page: Page, match: RegExp, timeout = 10_000): Promise<string> {
  const deadline = Date.now() + timeout
  let last = ''
  while (Date.now() < deadline) {
    last = await readGraphiqlResult(page)
    if (match.test(last)) return last
    await page.waitForTimeout(50)
  }
  throw new Error(`GraphiQL result did not match ${match} within ${timeout} ms; last text:\n${last}`)
}

/** Clicks the run button (for a running subscription the same button stops it). */
export async function clickGraphiqlRun(page: Page): Promise<void> {
  await page.locator('.graphiql-execute-button').first().click()
}

/** Sets the operation, runs it and waits for a result matching `match` (default: any non-empty text). */
export async function runGraphiqlOperation(page: Page, operation: string, match: RegExp = /\S/, timeout?: number): Promise<string> {
  await setGraphiqlOperation(page, operation)
  const before = await readGraphiqlResult(page)
  await clickGraphiqlRun(page)
  // GraphiQL clears the pane when it sends; wait (briefly) for the old result to go so it is not read back.
  if (before.trim()) {
    const deadline = Date.now() + 1_000
    while (Date.now() < deadline && (await readGraphiqlResult(page)) === before) await page.waitForTimeout(20)
  }
  return waitForGraphiqlResult(page, match, timeout)
}
