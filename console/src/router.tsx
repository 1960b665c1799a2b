// Owns client-side navigation: the address bar is the state (history.pushState), routes are matched by pattern.
// The gateway answers every such address with index.html, so a reload or a shared link lands on the same screen.
import { useEffect, useState, type AnchorHTMLAttributes, type MouseEvent } from 'react'

const NAVIGATED = 'console:navigated'

export function navigate(to: string, opts: { replace?: boolean } = {}): void {
  if (opts.replace) history.replaceState(null, '', to)
  else history.pushState(null, '', to)
  window.dispatchEvent(new Event(NAVIGATED))
}

/** The current path and query, re-rendering on navigation (links, back and forward). */
export function useLocation(): { pathname: string; search: URLSearchParams } {
  const [href, setHref] = useState(() => location.href)
  useEffect(() => {
    const update = () => setHref(location.href)
    window.addEventListener('popstate', update)
    window.addEventListener(NAVIGATED, update)
    return () => {
      window.removeEventListener('popstate', update)
      window.removeEventListener(NAVIGATED, update)
    }
  }, [])
  const url = new URL(href)
  return { pathname: url.pathname, search: url.searchParams }
}

/** Matches '/p/:slug/home' against a path; the named parts decoded, or null. */
export function match(pattern: string, pathname: string): Record<string, string> | null {
  const want = pattern.split('/')
  const got = pathname.replace(/\/+$/, '').split('/')
  if (pathname === '/' && pattern === '/') return {}
  if (want.length !== got.length) return null
  const params: Record<string, string> = {}
  for (let i = 0; i < want.length; i++) {
    if (want[i].startsWith(':')) params[want[i].slice(1)] = decodeURIComponent(got[i])
    else if (want[i] !== got[i]) return null
  }
  return params
}

/** A real link (works with a middle click, a new tab, the keyboard) that navigates in place on a plain click. */
export function Link(props: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  const onClick = (e: MouseEvent<HTMLAnchorElement>) => {
    props.onClick?.(e)
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return
    e.preventDefault()
    navigate(props.href)
  }
  return <a {...props} onClick={onClick} />
}
