// Headless Chromium for browser tests and the console bench, driven by playwright-core, plus helpers to drive
// the gateway's GraphiQL page: open it, set the bearer token, run an operation, read the result.
//
// Which Chromium: CHROMIUM_PATH when it names a file, else Debian's /usr/bin/chromium when present, else the
// build that `npm ci` brought from the npm registry inside @sparticuz/chromium's own tarball (a headless shell
// with its NSS libraries and a font; it needs nothing from the system but glibc). That build is unpacked once
// per version into node_modules/.cache, so a machine with nothing but Node runs the browser tests.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync, chmodSync } from 'node:fs'
import path from 'node:path'
import { brotliDecompressSync } from 'node:zlib'
import { chromium, type Browser, type ConsoleMessage, type Page, type Request } from 'playwright-core'
import { ROOT_DIR } from '../../core/config'

const SYSTEM_CHROMIUM = '/usr/bin/chromium'

export interface ChromiumBuild {
  executablePath: string
  /** Where the executable came from, for messages. */
  source: 'CHROMIUM_PATH' | 'system' | 'npm'
  /** Extra environment for the npm build (its libraries and fonts). */
  env: Record<string, string>
}

/** Reads a tar archive (ustar: regular files and folders, all these archives hold) into `dir`. */
function untar(archive: Buffer, dir: string): void {
  for (let offset = 0; offset + 512 <= archive.length; ) {
    const header = archive.subarray(offset, offset + 512)
    if (header.every((b) => b === 0)) break
    const field = (start: number, length: number) => header.subarray(start, start + length).toString('utf8').replace(/\0.*$/s, '')
    const name = [field(345, 155), field(0, 100)].filter(Boolean).join('/')
    const size = parseInt(field(124, 12).trim() || '0', 8)
    const type = field(156, 1) || '0'
    const target = path.join(dir, name)
    if (!target.startsWith(dir + path.sep) && target !== dir) throw new Error(`tar entry outside its folder: ${name}`)
    if (type === '5') mkdirSync(target, { recursive: true })
    else if (type === '0') {
      mkdirSync(path.dirname(target), { recursive: true })
      writeFileSync(target, archive.subarray(offset + 512, offset + 512 + size), { mode: parseInt(field(100, 8).trim() || '644', 8) })
    } else throw new Error(`tar entry of type ${type} not supported: ${name}`)
    offset += 512 + Math.ceil(size / 512) * 512
  }
}

/** Unpacks @sparticuz/chromium's build into node_modules/.cache once per version (atomically: parallel workers). */
export function npmChromium(): ChromiumBuild {
  // The package's exports do not list package.json: it is read from its folder.
  const packageJson = path.join(ROOT_DIR, 'node_modules/@sparticuz/chromium/package.json')
  if (!existsSync(packageJson)) {
    throw new Error(
      'No Chromium found: CHROMIUM_PATH is unset or names no file, /usr/bin/chromium is absent, and @sparticuz/chromium is not installed (run `npm ci`)',
    )
  }
  if (process.arch !== 'x64' || process.platform !== 'linux') {
    throw new Error(`The npm Chromium build runs on Linux x64 only (this is ${process.platform} ${process.arch}): set CHROMIUM_PATH to a Chromium or Chrome`)
  }
  const { version } = JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string }
  const bin = path.join(path.dirname(packageJson), 'bin')
  const dir = path.join(ROOT_DIR, 'node_modules/.cache/chromium', version)
  const executablePath = path.join(dir, 'chromium')
  if (!existsSync(executablePath)) {
    const building = `${dir}.building-${process.pid}`
    rmSync(building, { recursive: true, force: true })
    mkdirSync(building, { recursive: true })
    untar(brotliDecompressSync(readFileSync(path.join(bin, 'al2023.tar.br'))), building)
    untar(brotliDecompressSync(readFileSync(path.join(bin, 'fonts.tar.br'))), building)
    writeFileSync(
      path.join(building, 'fonts.conf'),
      `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n  <dir>${dir}/fonts</dir>\n  <dir>/usr/share/fonts</dir>\n  <cachedir>${dir}/fonts-cache</cachedir>\n</fontconfig>\n`,
    )
    // The executable last: its presence is what says the folder is complete.
    writeFileSync(path.join(building, 'chromium'), brotliDecompressSync(readFileSync(path.join(bin, 'chromium.br'))))
    chmodSync(path.join(building, 'chromium'), 0o755)
    try {
      renameSync(building, dir)
    } catch {
      rmSync(building, { recursive: true, force: true }) // another worker finished first
      if (!existsSync(executablePath)) throw new Error(`Could not unpack the npm Chromium build into ${dir}`)
    }
  }
  return {
    executablePath,
    source: 'npm',
    env: { LD_LIBRARY_PATH: [path.join(dir, 'lib'), process.env.LD_LIBRARY_PATH].filter(Boolean).join(':'), FONTCONFIG_PATH: dir },
  }
}

let resolved: ChromiumBuild | undefined

/** The Chromium the browser tests use (see the header for the order). */
export function chromiumBuild(): ChromiumBuild {
  if (resolved) return resolved
  const configured = process.env.CHROMIUM_PATH
  if (configured && existsSync(configured)) resolved = { executablePath: configured, source: 'CHROMIUM_PATH', env: {} }
  else if (existsSync(SYSTEM_CHROMIUM)) resolved = { executablePath: SYSTEM_CHROMIUM, source: 'system', env: {} }
  else resolved = npmChromium()
  return resolved
}

/**
 * Launches headless Chromium with the flags this machine needs (its network is closed: background
 * networking would fail loudly). playwright gives every launch a fresh temporary user-data-dir and removes
 * it on close.
 */
export async function launchChromium(build: ChromiumBuild = chromiumBuild()): Promise<Browser> {
  return chromium.launch({
    executablePath: build.executablePath,
    headless: true,
    env: { ...process.env, ...build.env } as Record<string, string>,
    args: [
      '--headless',
      '--no-sandbox',
      // The npm build is a headless shell without a zygote helper.
      ...(build.source === 'npm' ? ['--no-zygote'] : []),
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
