// Drives the web console in Chromium: a fresh browser context per person (its own sessionStorage, so its own
// sign-in), signing in through the development sign-in page, and watching for errors, foreign requests and popups.
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { watchPage, type PageWatch } from './browser'
import { plumbingWordsOnPage, watchForPopups, type PopupWatch } from './web-checks'
import type { Tenant } from './factories'
import { ILLUSTRATIVE } from '../../core/database'
import { type seedIllustrative } from '../../subgraphs/seed'
import { mintDevToken } from '../../core/identity'

export interface ConsolePerson {
  context: BrowserContext
  page: Page
  watch: PageWatch
  /** alert/confirm/prompt/beforeunload dialogs that fired (the console must never open one). */
  dialogs: string[]
  /** Every popup and modal of the page's life (dialogs, opened windows, modal elements): `await popups.problems()`. */
  popups: PopupWatch
  close(): Promise<void>
}

/** A person in their own browser context, signed in as `name` (an illustrative person) on the console at `baseUrl`. */
export async function openConsoleAs(browser: Browser, baseUrl: string, name: string, viewport = { width: 1440, height: 900 }): Promise<ConsolePerson> {
  const context = await browser.newContext({ viewport })
  const page = await context.newPage()
  const watch = watchPage(page)
  const popups = await watchForPopups(page)
  const dialogs = popups.dialogs
  await page.goto(`${baseUrl}/sign-in`)
  await page.getByRole('button', { name: new RegExp(`^${name}\\b`) }).click()
  await page.getByRole('heading', { level: 1, name: 'Your programs' }).waitFor()
  return { context, page, watch, dialogs, popups, close: () => context.close() }
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
 * The plumbing words a person would read on the page now (none expected): the one list, core/text/plumbing-words.ts, as
 * the web checks read the page (visible text, title, aria-labels, placeholders, titles, alt texts, input values).
 */
export async function plumbingIn(page: Page): Promise<string[]> {
  return (await plumbingWordsOnPage(page)).map((f) => `${f.name} in ${f.where}: '${f.match}' in '${f.context}'`)
}

/**
 * The illustrative seed as a test tenant: its organisation, program and people (with their names), and development
 * tokens minted for them, so a console test signs in as the people the sign-in page lists.
 */
export function illustrativeTenant(seed: Awaited<ReturnType<typeof seedIllustrative>>): Tenant {
  const names = Object.fromEntries(ILLUSTRATIVE.users.map((u) => [u.persona, u.name]))
  const users = Object.fromEntries(Object.entries(seed.users).map(([k, u]) => [k, { ...u, name: names[k] ?? ILLUSTRATIVE.admin.name }]))
  return {
    organization: seed.organization, program: seed.program, users,
    session: () => { throw new Error('not used') },
    token: (persona: string) => mintDevToken(users[persona]),
  } as unknown as Tenant
}
