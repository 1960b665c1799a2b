// Record types as people read them: 'evidence.findings' becomes 'Evidence: findings' (the contract's product and
// resource, never a raw key on screen).
export function recordTypeName(recordType: string | null | undefined): string {
  if (!recordType) return 'Record'
  const [product, resource = ''] = recordType.split('.')
  const words = resource.replace(/_/g, ' ')
  return `${product.charAt(0).toUpperCase()}${product.slice(1)}: ${words}`
}

/** The list of a program's records of one type (the rail's area screens): /p/<slug>/<product>?type=<key>. */
export function recordListHref(slug: string, recordType: string, extra: Record<string, string> = {}): string {
  const product = recordType.split('.')[0]
  const q = new URLSearchParams({ type: recordType, ...extra })
  return `/p/${encodeURIComponent(slug)}/${encodeURIComponent(product)}?${q.toString()}`
}
