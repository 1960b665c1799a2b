// Browser entry for the development GraphiQL page: GraphiQL 5 + graphql-ws subscriptions, bundled by
// gateway/graphiql/build.ts with everything from node_modules (no CDN, no request leaves the page's origin).
// A token bar above GraphiQL takes the caller's bearer token (sessionStorage only) and sends it as
// `Authorization: Bearer <token>` on HTTP requests and as `{ authorization }` in graphql-ws connection_init. With an
// identity provider, "Sign in with your organisation" goes through the console's sign-in and back here; the console's
// token in this tab is used until another is pasted.
import 'graphiql/style.css'
import './app.css'
import React, { useCallback, useEffect, useMemo, useRef, useState } from 'react'
import { createRoot } from 'react-dom/client'
import { GraphiQL } from 'graphiql'
import { createGraphiQLFetcher } from '@graphiql/toolkit'
import { createClient } from 'graphql-ws'
import { getOperationAST, parse } from 'graphql'

// Monaco (monaco-editor 0.52) needs its web workers; each one is a self-contained IIFE bundle served next
// to this file (same origin, so the page's CSP only needs worker-src 'self').
const assetBase = new URL('.', import.meta.url)
globalThis.MonacoEnvironment = {
  getWorker(_workerId, label) {
    const name = label === 'json' ? 'json' : label === 'graphql' ? 'graphql' : 'editor'
    return new Worker(new URL(`${name}.worker.js`, assetBase), { name: `monaco-${name}` })
  },
}

// Server configuration: a JSON data block (not executed, so the CSP needs no inline script), unless a
// script already set window.__GRAPHIQL__.
function readConfig() {
  if (window.__GRAPHIQL__ && typeof window.__GRAPHIQL__ === 'object') return window.__GRAPHIQL__
  const el = document.getElementById('graphiql-config')
  let cfg = {}
  try {
    cfg = el ? JSON.parse(el.textContent || '{}') : {}
  } catch {
    cfg = {}
  }
  window.__GRAPHIQL__ = cfg
  return cfg
}

const cfg = readConfig()
const httpUrl = new URL(cfg.endpoint || '/graphql', location.href).href
const wsUrl = httpUrl.replace(/^http/, 'ws')
const TOKEN_KEY = 'graphiql:bearer-token'

function loadToken() {
  try {
    return sessionStorage.getItem(TOKEN_KEY) || ''
  } catch {
    return ''
  }
}

/**
 * The console's session in this tab (console/src/api/session.ts), when the person signed in at the identity provider
 * through the console's sign-in (cfg.signInUrl, which comes back here): its access token, used until one is pasted.
 */
function consoleToken() {
  try {
    const session = JSON.parse(sessionStorage.getItem('console:session') || 'null')
    return session && typeof session.token === 'string' ? session.token : ''
  } catch {
    return ''
  }
}

function saveToken(token) {
  try {
    if (token) sessionStorage.setItem(TOKEN_KEY, token)
    else sessionStorage.removeItem(TOKEN_KEY)
  } catch {
    // storage disabled: the token lives only in memory for this page
  }
}

// Accept a pasted "Bearer xyz" as well as the bare token.
function normalizeToken(value) {
  return value.trim().replace(/^bearer\s+/i, '').trim()
}

function TokenBar({ token, onApply }) {
  const [draft, setDraft] = useState(token)
  const timer = useRef(undefined)
  useEffect(() => () => clearTimeout(timer.current), [])
  const apply = useCallback(
    (value) => {
      clearTimeout(timer.current)
      onApply(normalizeToken(value))
    },
    [onApply],
  )
  return React.createElement(
    'form',
    {
      className: 'gw-token-bar',
      autoComplete: 'off',
      onSubmit: (e) => {
        e.preventDefault()
        apply(draft)
      },
    },
    React.createElement('label', { htmlFor: 'gw-token' }, 'Bearer token'),
    React.createElement('input', {
      id: 'gw-token',
      name: 'bearer-token',
      type: 'password',
      placeholder: 'paste a token (kept in this tab only)',
      'aria-label': 'Bearer token',
      autoComplete: 'off',
      spellCheck: false,
      value: draft,
      onChange: (e) => {
        const value = e.target.value
        setDraft(value)
        clearTimeout(timer.current)
        // Debounced: typing does not re-create the clients on every keystroke; Enter or blur applies at once.
        timer.current = setTimeout(() => onApply(normalizeToken(value)), 300)
      },
      onBlur: () => apply(draft),
    }),
    React.createElement(
      'button',
      {
        type: 'button',
        onClick: () => {
          setDraft('')
          apply('')
        },
      },
      'Clear',
    ),
    cfg.signInUrl
      ? React.createElement('a', { href: cfg.signInUrl, className: 'gw-sign-in' }, 'Sign in with your organisation')
      : null,
    React.createElement(
      'span',
      { className: 'gw-token-status', 'data-state': token ? 'set' : 'unset', 'data-testid': 'token-status' },
      token ? 'token set: Authorization header and connection_init carry it' : 'no token: requests are anonymous',
    ),
  )
}

// The operation a run sends, from the query text itself. The toolkit's fetcher decides "subscription" from GraphiQL's
// documentAST and operationName, which do not always agree with the text (a named subscription run while GraphiQL's
// operationName is still unset compares 'Name' with undefined): it then POSTed the subscription, which HTTP refuses.
function operationOf(params) {
  try {
    const document = parse(params.query)
    return { document, operation: getOperationAST(document, params.operationName || undefined) }
  } catch {
    return undefined // not parseable here: the server answers the syntax error
  }
}

/** Every subscription goes over the socket: the toolkit is handed the facts it decides on, from the text. */
function socketForSubscriptions(toolkitFetcher) {
  return (params, opts) => {
    const parsed = operationOf(params)
    if (parsed?.operation?.operation !== 'subscription') return toolkitFetcher(params, opts)
    return toolkitFetcher(
      { ...params, operationName: parsed.operation.name?.value },
      { ...opts, documentAST: parsed.document },
    )
  }
}

function App() {
  const [token, setToken] = useState(() => loadToken() || consoleToken())
  const applyToken = useCallback((next) => {
    saveToken(next)
    setToken(next)
  }, [])

  // One HTTP fetcher + one lazy graphql-ws client per token; the previous client is disposed on change.
  const { fetcher, wsClient } = useMemo(() => {
    const authorization = token ? `Bearer ${token}` : undefined
    const client = createClient({
      url: wsUrl,
      lazy: true,
      connectionParams: () => (authorization ? { authorization } : {}),
      // A refused token (4403 Forbidden) will not be accepted on retry: this client's token never changes
      // (a new token makes a new client), so fail at once and show the error instead of backing off.
      shouldRetry: (e) => !(e && typeof e === 'object' && 'code' in e && e.code === 4403),
    })
    return {
      wsClient: client,
      fetcher: socketForSubscriptions(createGraphiQLFetcher({
        url: httpUrl,
        headers: authorization ? { Authorization: authorization } : undefined,
        wsClient: client,
      })),
    }
  }, [token])
  useEffect(() => () => void wsClient.dispose(), [wsClient])

  // Without a token an authenticated endpoint refuses introspection (a 401 in the console): wait for one,
  // unless the server says anonymous introspection is allowed.
  const schema = token || cfg.introspectWithoutToken ? undefined : null

  return React.createElement(
    React.Fragment,
    null,
    React.createElement(TokenBar, { token, onApply: applyToken }),
    React.createElement(GraphiQL, { fetcher, schema, defaultQuery: cfg.defaultQuery }),
  )
}

createRoot(document.getElementById('graphiql-root')).render(React.createElement(App))
