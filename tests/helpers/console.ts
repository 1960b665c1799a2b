// Drives the web console in Chromium: a fresh browser context per person (its own sessionStorage, so its own
// sign-in), signing in through the development sign-in page, and watching for errors, foreign requests and popups.
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { watchPage, type PageWatch } from './browser'

export interface ConsolePerson {
  context: BrowserContext
  page: Page
  watch: PageWatch
  /** alert/confirm/prompt/beforeunload dialogs that fired (the console must never open one). */
  dialogs: string[]
  close(): Promise<void>
}

/** A person in their own browser context, signed in as `name` (an illustrative person) on the console at `baseUrl`. */
export async function openConsoleAs(browser: Browser, baseUrl: string, name: string, viewport = { width: 1440, height: 900 }): Promise<ConsolePerson> {
  const context = await browser.newContext({ viewport })
  const page = await context.newPage()
  const watch = watchPage(page)
  const dialogs: string[] = []
  page.on('dialog', (d) => {
    dialogs.push(`${d.type()}: ${d.message()}`)
    void d.dismiss()
  })
  await page.goto(`${baseUrl}/sign-in`)
  await page.getByRole('button', { name: new RegExp(`^${name}\\b`) }).click()
  await page.getByRole('heading', { level: 1, name: 'Your programs' }).waitFor()
  return { context, page, watch, dialogs, close: () => context.close() }
}

/** Opens a program's role home from the program list (as a person would: by its link). */
export async function openProgramHome(page: Page, programName: string): Promise<void> {
  await page.getByRole('link', { name: programName }).click()
  await page.getByRole('heading', { level: 1, name: programName }).waitFor()
}

/** The page is no wider than the viewport (no horizontal scrolling). */
export async function scrollsHorizontally(page: Page): Promise<boolean> {
  return page.evaluate(() => {
    const d = (globalThis as any).document.documentElement
    return d.scrollWidth > d.clientWidth
  })
}

/**
 * Internal words no visible text may carry (the plumbing-word list, in one place): raw error codes, empty
 * values, transport and format names, unformatted timestamps, identifiers, stack traces, a model or vendor as author.
 */
export const PLUMBING_WORDS: readonly RegExp[] = [
  /\b[a-z]+_[a-z_]+\b/, // snake_case codes such as stale_proposal, invalid_input
  /\b(null|undefined|NaN)\b/,
  /\[object Object\]/,
  /\b(GraphQL|webhook|interrupt|JSON|UUID)\b/i,
  /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/, // ISO timestamps
  /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/i,
  /\bat \S+ \(.*:\d+:\d+\)/, // stack frames
  /\b(model|vendor)[- ]generated\b/i,
  /\bRequested by\b/,
]

/** The page's visible text and the plumbing words found in it (none expected). */
export async function plumbingIn(page: Page): Promise<string[]> {
  const text = await page.evaluate(() => (globalThis as any).document.body.innerText as string)
  return PLUMBING_WORDS.flatMap((re) => {
    const m = text.match(re)
    return m ? [`${re}: ${m[0]}`] : []
  })
}
